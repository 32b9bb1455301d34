import { z } from "zod";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** Sentry's relative periods and intervals: `30s`, `15m`, `24h`, `14d`, `2w`. */
export const durationSchema = z
  .string()
  .regex(/^\d{1,6}[smhdw]$/, 'must be a number and a unit: s, m, h, d or w (e.g. "24h", "14d")')
  .transform((value) => Number(value.slice(0, -1)) * UNIT_MS[value.at(-1) as keyof typeof UNIT_MS])
  .refine((ms) => ms > 0, "must be longer than zero");

const isoDate = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" }).transform((value) => new Date(value));

/** The time window of a query: `statsPeriod` (ending now) or `start` and `end`, as Sentry's endpoints take it. */
export const timeRangeShape = {
  statsPeriod: durationSchema.optional(),
  start: isoDate.optional(),
  end: isoDate.optional(),
};

export interface TimeRange {
  start: Date;
  end: Date;
}

/**
 * Resolves the window against `now`: `start`+`end` when both are given, else `statsPeriod` (or
 * `fallbackMs`) back from now. A half-given `start`/`end` or an empty window is an error message.
 */
export function resolveTimeRange(
  input: { statsPeriod?: number; start?: Date; end?: Date },
  now: Date,
  fallbackMs: number,
): TimeRange | string {
  if ((input.start === undefined) !== (input.end === undefined)) return "start and end must be given together";
  if (input.start && input.end) {
    if (input.start >= input.end) return "start must be before end";
    return { start: input.start, end: input.end };
  }
  return { start: new Date(now.getTime() - (input.statsPeriod ?? fallbackMs)), end: now };
}
