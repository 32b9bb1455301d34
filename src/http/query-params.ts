import { z } from "zod";

/** A query parameter that may be repeated (`?project=1&project=2`): always a list here. */
export const repeatable = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
