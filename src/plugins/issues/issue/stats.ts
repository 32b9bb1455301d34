import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";

/** The fixed stats series (`auto` is computed from the request's time window, see {@link autoSpec}). */
export type StatsPeriod = "24h" | "14d" | "30d";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export type StatsTable = "issue_stats_hourly" | "issue_stats_daily";

/** A timeline to draw: its key in `stats`, bucket size, first and last bucket start, and the counter table. */
export interface TimelineSpec {
  key: string;
  size: number;
  first: Date;
  last: Date;
  table: StatsTable;
}

/** Whole hours up to this window are drawn hourly by `auto`; longer ones daily. */
const AUTO_HOURLY_LIMIT = 7 * DAY;

const tableOf = (size: number): StatsTable => (size === HOUR ? "issue_stats_hourly" : "issue_stats_daily");

/** The buckets of `size` (hour or day) from the one holding `from` to the one holding `to`. */
function aligned(key: string, size: number, from: Date, to: Date): TimelineSpec {
  const first = Math.floor(from.getTime() / size) * size;
  const last = Math.max(first, Math.floor(to.getTime() / size) * size);
  return { key, size, first: new Date(first), last: new Date(last), table: tableOf(size) };
}

const FIXED: Record<StatsPeriod, { size: number; points: number }> = {
  "24h": { size: HOUR, points: 24 },
  "14d": { size: DAY, points: 14 },
  "30d": { size: DAY, points: 30 },
};

/** A fixed series ending in the bucket that holds `now`. */
export function periodSpec(period: StatsPeriod, now: Date): TimelineSpec {
  const { size, points } = FIXED[period];
  return aligned(period, size, new Date(now.getTime() - (points - 1) * size), now);
}

/** Sentry's `groupStatsPeriod=auto`: the request's own window, hourly up to a week, else daily. */
export function autoSpec(window: { start: Date; end: Date }): TimelineSpec {
  const size = window.end.getTime() - window.start.getTime() <= AUTO_HOURLY_LIMIT ? HOUR : DAY;
  return aligned("auto", size, window.start, window.end);
}

/** The first and last bucket (ms) of a period's timeline ending at `now`. */
export function timelineRange(period: StatsPeriod, now: Date): { first: Date; last: Date } {
  const { first, last } = periodSpec(period, now);
  return { first, last };
}

export type Timeline = Array<[number, number]>;

/** The zero-filled timeline from `[bucket start in ms, count]` pairs (any order). */
export function fillTimeline(buckets: Iterable<readonly [number, number]>, spec: TimelineSpec): Timeline {
  const first = spec.first.getTime();
  const points = Math.round((spec.last.getTime() - first) / spec.size) + 1;
  const timeline: Timeline = new Array(points);
  for (let i = 0; i < points; i++) timeline[i] = [(first + i * spec.size) / 1000, 0];
  for (const [bucket, count] of buckets) {
    const index = (bucket - first) / spec.size;
    const point = Number.isInteger(index) ? timeline[index] : undefined;
    if (point) point[1] = count;
  }
  return timeline;
}

/**
 * Stats timelines from the counters maintained at ingest: `[[epochSeconds, count], …]`, oldest
 * first, buckets aligned to the UTC hour or day, zero-filled. One query for all issues.
 */
export async function loadTimelines(
  db: Kysely<Database>,
  issueIds: number[],
  spec: TimelineSpec,
): Promise<Map<number, Timeline>> {
  const rows =
    issueIds.length === 0
      ? []
      : await db
          .selectFrom(spec.table)
          .select(["issue_id", "bucket", "count"])
          .where("issue_id", "in", issueIds)
          .where("bucket", ">=", spec.first)
          .where("bucket", "<=", spec.last)
          .execute();
  const byIssue = new Map<number, Array<[number, number]>>();
  for (const row of rows) {
    const id = Number(row.issue_id);
    let buckets = byIssue.get(id);
    if (!buckets) byIssue.set(id, (buckets = []));
    buckets.push([row.bucket.getTime(), row.count]);
  }
  const timelines = new Map<number, Timeline>();
  for (const id of issueIds) timelines.set(id, fillTimeline(byIssue.get(id) ?? [], spec));
  return timelines;
}
