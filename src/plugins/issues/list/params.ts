import { z } from "zod";
import { cursorSchema, pageSizeSchema } from "../../../http/pagination.js";
import { repeatable } from "../../../http/query-params.js";
import { ISSUE_SORTS } from "./sorts.js";


const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** Longest window accepted: ten years (a larger number is a typo, not a question). */
const MAX_WINDOW_MS = 3650 * UNIT_MS.d;

/** Sentry's duration spelling: a number and one of `s m h d w` (`14d`, `24h`, `90m`), or empty. */
const duration = z
  .string()
  .regex(/^(\d{1,7}[smhdw])?$/, "must be a number followed by s, m, h, d or w (14d, 24h) or empty")
  .transform((value) => (value === "" ? ("" as const) : Number(value.slice(0, -1)) * UNIT_MS[value.at(-1) as keyof typeof UNIT_MS]))
  .refine((ms) => ms === "" || (ms > 0 && ms <= MAX_WINDOW_MS), "must be more than 0 and at most 3650d");

/** An ISO 8601 date or date-time; without an offset it is UTC (as Sentry reads `start` / `end`). */
const timestamp = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,9})?)?([zZ]|[+-]\d\d:?\d\d)?)?$/, "must be an ISO 8601 timestamp")
  .transform((value) => new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) || value.length === 10 ? value : `${value}Z`))
  .refine((date) => !Number.isNaN(date.getTime()), "must be an ISO 8601 timestamp");

/** `groupStatsPeriod`: which stats series the items carry — `24h`, `14d`, `auto` (the window's own), empty for none. */
const seriesSchema = z.enum(["24h", "14d", "auto", ""], { error: 'must be "24h", "14d", "auto" or empty' }).optional();

/** What selects issues: shared by the list and the bulk PUT / DELETE without `id`. */
export const issueFilterShape = {
  query: z.string().optional(),
  status: z.enum(["resolved", "unresolved", "ignored"], { error: 'must be "resolved", "unresolved" or "ignored"' }).optional(),
  assignee: z.string().min(1).optional(),
  /** `-1` is Sentry's "all projects". */
  project: repeatable.pipe(z.array(z.string().regex(/^(-1|\d{1,18})$/, "must be a project id").transform(Number))),
  environment: repeatable.transform((values) => values.filter((value) => value !== "")),
};

/** The time window of events the list is limited to: the last `periodMs`, or `start`–`end`. */
export type TimeWindowParam = { periodMs: number } | { start: Date; end: Date } | null;

export type StatsSeries = "24h" | "14d" | "auto" | null;

export const listIssuesQuery = z
  .object({
    ...issueFilterShape,
    statsPeriod: duration.optional(),
    start: timestamp.optional(),
    end: timestamp.optional(),
    groupStatsPeriod: seriesSchema,
    sort: z.enum(ISSUE_SORTS, { error: `must be one of ${ISSUE_SORTS.join(", ")}` }).default("date"),
    limit: pageSizeSchema,
    cursor: cursorSchema,
    shortIdLookup: z.enum(["0", "1", "true", "false"]).optional(),
  })
  .superRefine((query, ctx) => {
    if (query.statsPeriod !== undefined) return;
    if ((query.start === undefined) !== (query.end === undefined)) {
      ctx.addIssue({ code: "custom", path: [query.start ? "end" : "start"], message: "start and end must be given together" });
      // zod runs this check even when a field failed its own: only compare what parsed into dates.
    } else if (query.start instanceof Date && query.end instanceof Date && query.start.getTime() >= query.end.getTime()) {
      ctx.addIssue({ code: "custom", path: ["end"], message: "must be after start" });
    }
  })
  .transform(({ statsPeriod, groupStatsPeriod, start, end, shortIdLookup, ...rest }, ctx) => {
    const window: TimeWindowParam =
      typeof statsPeriod === "number" ? { periodMs: statsPeriod } : statsPeriod === undefined && start && end ? { start, end } : null;
    const series = seriesOf(groupStatsPeriod, statsPeriod);
    if (series === "auto" && window === null) {
      ctx.addIssue({ code: "custom", path: ["groupStatsPeriod"], message: '"auto" needs a time window (statsPeriod, or start and end)' });
      return z.NEVER;
    }
    return { ...rest, window, series, shortIdLookup: shortIdLookup === "1" || shortIdLookup === "true" };
  });

/**
 * The stats series: `groupStatsPeriod` when given (Sentry); else, as the seed's clients send it,
 * a `statsPeriod` of `24h`, `14d` or empty names the series too; otherwise `24h` (Sentry's default).
 */
function seriesOf(groupStatsPeriod: z.output<typeof seriesSchema>, statsPeriod: number | "" | undefined): StatsSeries {
  if (groupStatsPeriod !== undefined) return groupStatsPeriod === "" ? null : groupStatsPeriod;
  if (statsPeriod === "") return null;
  if (statsPeriod === 14 * UNIT_MS.d) return "14d";
  return "24h";
}

/** The window's bounds at `now`, or null for all time. */
export function windowBounds(window: TimeWindowParam, now: Date): { start: Date; end: Date } | null {
  if (window === null) return null;
  if ("periodMs" in window) return { start: new Date(now.getTime() - window.periodMs), end: now };
  return window;
}

export type ListIssuesQuery = z.output<typeof listIssuesQuery>;
export type IssueFilterParams = Pick<ListIssuesQuery, "query" | "status" | "assignee" | "project" | "environment">;
