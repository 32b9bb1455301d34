import { z } from "zod";
import { cursorSchema, pageSizeSchema } from "../../http/pagination.js";
import { normalizeEventId } from "./input.js";

/**
 * `POST …/user-feedback/`, Sentry's legacy user report: `event_id` and `comments` are required.
 * Text longer than the limits is cut, as for the envelope's reports (docs/user-feedback.md,
 * "Limits"); the request body's own limit bounds what is read.
 */
export const reportBody = z.object({
  event_id: z
    .string()
    .max(64)
    .refine((value) => normalizeEventId(value) !== null, "must be an event id (32 hexadecimal characters or a UUID)"),
  name: z.string().default(""),
  email: z.union([z.literal(""), z.email("must be an email address")]).default(""),
  comments: z.string().refine((value) => value.trim() !== "", "must not be empty"),
});

export const listQuery = z.object({ per_page: pageSizeSchema, cursor: cursorSchema });
