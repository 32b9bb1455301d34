import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";

export type StatsPeriod = "24h" | "14d" | "30d";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PERIODS: Record<StatsPeriod, { size: number; points: number; table: "issue_stats_hourly" | "issue_stats_daily" }> = {
  "24h": { size: HOUR, points: 24, table: "issue_stats_hourly" },
  "14d": { size: DAY, points: 14, table: "issue_stats_daily" },
  "30d": { size: DAY, points: 30, table: "issue_stats_daily" },
};

export type Timeline = Array<[number, number]>;

/** The first and last bucket (ms) of a period's timeline ending at `now`. */
export function timelineRange(period: StatsPeriod, now: Date): { first: Date; last: Date } {
  const { size, points } = PERIODS[period];
  const last = Math.floor(now.getTime() / size) * size;
  return { first: new Date(last - (points - 1) * size), last: new Date(last) };
}

/** The zero-filled timeline of one issue from its `[bucket start in ms, count]` pairs (any order). */
export function fillTimeline(buckets: Iterable<readonly [number, number]>, period: StatsPeriod, now: Date): Timeline {
  const { size, points } = PERIODS[period];
  const first = timelineRange(period, now).first.getTime();
  const timeline: Timeline = new Array(points);
  for (let i = 0; i < points; i++) timeline[i] = [(first + i * size) / 1000, 0];
  for (const [bucket, count] of buckets) {
    const index = (bucket - first) / size;
    const point = Number.isInteger(index) ? timeline[index] : undefined;
    if (point) point[1] = count;
  }
  return timeline;
}

/** The table a period's buckets are counted in. */
export function timelineTable(period: StatsPeriod) {
  return PERIODS[period].table;
}

/**
 * Stats timelines from the counters maintained at ingest: `[[epochSeconds, count], …]`, oldest
 * first, buckets aligned to the UTC hour or day, zero-filled. One query for all issues.
 */
export async function loadTimelines(db: Kysely<Database>, issueIds: number[], period: StatsPeriod, now: Date): Promise<Map<number, Timeline>> {
  const { first, last } = timelineRange(period, now);
  const rows =
    issueIds.length === 0
      ? []
      : await db
          .selectFrom(timelineTable(period))
          .select(["issue_id", "bucket", "count"])
          .where("issue_id", "in", issueIds)
          .where("bucket", ">=", first)
          .where("bucket", "<=", last)
          .execute();
  const byIssue = new Map<number, Array<[number, number]>>();
  for (const row of rows) {
    const id = Number(row.issue_id);
    let buckets = byIssue.get(id);
    if (!buckets) byIssue.set(id, (buckets = []));
    buckets.push([row.bucket.getTime(), row.count]);
  }
  const timelines = new Map<number, Timeline>();
  for (const id of issueIds) timelines.set(id, fillTimeline(byIssue.get(id) ?? [], period, now));
  return timelines;
}
