import { z } from "zod";

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** Longest window accepted: ten years (a larger number is a typo, not a question). */
const MAX_WINDOW_MS = 3650 * UNIT_MS.d;

/** Sentry's duration spelling: a number and one of `s m h d w` (`14d`, `24h`, `90m`) → ms, or empty → `""`. */
export const durationSchema = z
  .string()
  .regex(/^(\d{1,7}[smhdw])?$/, "must be a number followed by s, m, h, d or w (14d, 24h) or empty")
  .transform((value) =>
    value === "" ? ("" as const) : Number(value.slice(0, -1)) * UNIT_MS[value.at(-1) as keyof typeof UNIT_MS],
  )
  .refine((ms) => ms === "" || (ms > 0 && ms <= MAX_WINDOW_MS), "must be more than 0 and at most 3650d");

/** An ISO 8601 date or date-time; without an offset it is UTC (as Sentry reads `start` / `end`). */
export const timestampSchema = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,9})?)?([zZ]|[+-]\d\d:?\d\d)?)?$/, "must be an ISO 8601 timestamp")
  .transform((value) => new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) || value.length === 10 ? value : `${value}Z`))
  .refine((date) => !Number.isNaN(date.getTime()), "must be an ISO 8601 timestamp");

/** The time window of a query: `statsPeriod` (ending now) or `start` and `end`, as Sentry's endpoints take it. */
export const timeRangeShape = {
  statsPeriod: durationSchema.optional(),
  start: timestampSchema.optional(),
  end: timestampSchema.optional(),
};

export interface TimeRange {
  start: Date;
  end: Date;
}

/**
 * Resolves the window against `now`: `start`+`end` when both are given, else `statsPeriod` (or
 * `fallbackMs` when it is absent or empty) back from now. A half-given `start`/`end` or an empty
 * window is an error message.
 */
export function resolveTimeRange(
  input: { statsPeriod?: number | ""; start?: Date; end?: Date },
  now: Date,
  fallbackMs: number,
): TimeRange | string {
  if ((input.start === undefined) !== (input.end === undefined)) return "start and end must be given together";
  if (input.start && input.end) {
    if (input.start >= input.end) return "start must be before end";
    return { start: input.start, end: input.end };
  }
  return { start: new Date(now.getTime() - (input.statsPeriod || fallbackMs)), end: now };
}
