import { z } from "zod";

export const MAX_COMMENT_LENGTH = 10_000;

/**
 * `{text}` of POST and PUT. Trimmed first (Sentry's serializer does the same), so a comment of
 * only spaces is refused as empty; unknown fields are ignored (docs/http.md, "Bodies").
 */
export const commentBody = z.object({
  text: z
    .string({ error: (issue) => (issue.input === undefined ? "This field is required." : "must be a string") })
    .trim()
    .min(1, "must not be empty")
    .max(MAX_COMMENT_LENGTH, `at most ${MAX_COMMENT_LENGTH} characters`),
});

/** A comment id in a path: digits only (anything else is "not found", never a 400 or a 500). */
export function parseCommentId(value: string): number | null {
  return /^\d{1,15}$/.test(value) ? Number(value) : null;
}
