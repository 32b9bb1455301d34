import { z } from "zod";
import { cursorSchema, pageSizeSchema } from "../../../http/pagination.js";
import { repeatable } from "../../../http/query-params.js";
import { durationSchema as duration, timestampSchema as timestamp } from "../../../http/time-range.js";
import { ISSUE_SORTS } from "./sorts.js";

/** `groupStatsPeriod`: which stats series the items carry — `24h`, `14d`, `auto` (the window's own), empty for none. */
const seriesSchema = z.enum(["24h", "14d", "auto", ""], { error: 'must be "24h", "14d", "auto" or empty' }).optional();

/** What selects issues: shared by the list and the bulk PUT / DELETE without `id`. */
export const issueFilterShape = {
  query: z.string().optional(),
  status: z
    .enum(["resolved", "unresolved", "ignored"], { error: 'must be "resolved", "unresolved" or "ignored"' })
    .optional(),
  assignee: z.string().min(1).optional(),
  /** `-1` is Sentry's "all projects". */
  project: repeatable.pipe(
    z.array(
      z
        .string()
        .regex(/^(-1|\d{1,18})$/, "must be a project id")
        .transform(Number),
    ),
  ),
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
      ctx.addIssue({
        code: "custom",
        path: [query.start ? "end" : "start"],
        message: "start and end must be given together",
      });
      // zod runs this check even when a field failed its own: only compare what parsed into dates.
    } else if (
      query.start instanceof Date &&
      query.end instanceof Date &&
      query.start.getTime() >= query.end.getTime()
    ) {
      ctx.addIssue({ code: "custom", path: ["end"], message: "must be after start" });
    }
  })
  .transform(({ statsPeriod, groupStatsPeriod, start, end, shortIdLookup, ...rest }) => {
    const window: TimeWindowParam =
      typeof statsPeriod === "number"
        ? { periodMs: statsPeriod }
        : statsPeriod === undefined && start && end
          ? { start, end }
          : null;
    const series = seriesOf(groupStatsPeriod, statsPeriod);
    return { ...rest, window, series, shortIdLookup: shortIdLookup === "1" || shortIdLookup === "true" };
  });

/**
 * The stats series: `groupStatsPeriod` when given (Sentry); else, as the seed's clients send it,
 * a `statsPeriod` of `24h`, `14d` or empty names the series too; otherwise `24h` (Sentry's default).
 */
function seriesOf(groupStatsPeriod: z.output<typeof seriesSchema>, statsPeriod: number | "" | undefined): StatsSeries {
  if (groupStatsPeriod !== undefined) return groupStatsPeriod === "" ? null : groupStatsPeriod;
  if (statsPeriod === "") return null;
  if (statsPeriod === 14 * 86_400_000) return "14d";
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

/** What the list reads: the filters, sort, page and presentation of a list request. */
export type ListParams = Pick<
  ListIssuesQuery,
  keyof IssueFilterParams | "sort" | "limit" | "cursor" | "shortIdLookup" | "window" | "series"
>;
