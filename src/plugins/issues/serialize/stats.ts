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

/**
 * Stats timelines from the counters maintained at ingest: `[[epochSeconds, count], …]`, oldest
 * first, buckets aligned to the UTC hour or day, zero-filled. One query for all issues.
 */
export async function loadTimelines(db: Kysely<Database>, issueIds: number[], period: StatsPeriod, now: Date): Promise<Map<number, Timeline>> {
  const { size, points, table } = PERIODS[period];
  const last = Math.floor(now.getTime() / size) * size;
  const first = last - (points - 1) * size;
  const rows =
    issueIds.length === 0
      ? []
      : await db
          .selectFrom(table)
          .select(["issue_id", "bucket", "count"])
          .where("issue_id", "in", issueIds)
          .where("bucket", ">=", new Date(first))
          .where("bucket", "<=", new Date(last))
          .execute();
  const counts = new Map<string, number>(rows.map((row) => [`${row.issue_id}:${row.bucket.getTime()}`, row.count]));
  const timelines = new Map<number, Timeline>();
  for (const id of issueIds) {
    timelines.set(
      id,
      Array.from({ length: points }, (_, i) => {
        const bucket = first + i * size;
        return [bucket / 1000, counts.get(`${id}:${bucket}`) ?? 0];
      }),
    );
  }
  return timelines;
}
