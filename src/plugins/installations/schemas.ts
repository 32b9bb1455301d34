import { z } from "zod";
import { scopeSchema } from "../../auth/scopes.js";

export const APP_EVENT_CATEGORIES = ["issue", "error", "comment", "installation", "metric_alert", "event_alert"] as const;

export const createAppInput = z.object({
  organization: z.union([z.number().int().positive(), z.string().min(1)]),
  name: z.string().min(1).max(200),
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,49}$/).optional(),
  isInternal: z.boolean().default(false),
  webhookUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
  events: z.array(z.enum(APP_EVENT_CATEGORIES)).default([]),
  scopes: z.array(scopeSchema).default([]),
  schema: z.record(z.string(), z.unknown()).nullable().default(null),
});

export const installAppInput = z.object({
  organization: z.union([z.number().int().positive(), z.string().min(1)]),
  app: z.string().min(1),
});

export type CreateAppInput = z.input<typeof createAppInput>;
export type InstallAppInput = z.input<typeof installAppInput>;
