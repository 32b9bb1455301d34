import type { z } from "zod";
import { fieldErrors, zodFieldErrors } from "./errors.js";

/** Parses with a zod schema; a failure is a 400 naming each failing field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fieldErrors(zodFieldErrors(result.error));
  return result.data;
}
