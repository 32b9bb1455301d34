import { z } from "zod";

export const SERVICE_HOOK_EVENTS = ["event.alert", "event.created"] as const;

const events = z
  .array(z.string())
  .min(1, "at least one event is required")
  .superRefine((names, ctx) => {
    for (const name of names) {
      if (!(SERVICE_HOOK_EVENTS as readonly string[]).includes(name))
        ctx.addIssue({ code: "custom", message: `Invalid event name: ${name}` });
    }
  })
  .transform((names) => [...new Set(names)].sort());

const url = z.string().min(1).max(2048);

export const createHookBody = z.object({ url, events });
export const updateHookBody = z.object({
  url: url.optional(),
  events: events.optional(),
  isActive: z.boolean().optional(),
});
export const listHooksQuery = z.object({ status: z.enum(["active", "disabled"]).optional() });
