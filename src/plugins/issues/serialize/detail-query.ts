import type { Kysely } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Database, Issue } from "../../../db/schema.js";
import { epochMs, type IssueQuery, type RelatedColumns, timelineBuckets, type TimelineBuckets, withRelatedColumns } from "./related-sql.js";

/** How many activity entries the detail shows, newest first. */
export const ACTIVITY_LIMIT = 100;

/** Everything the single-issue shape shows besides the issue row, read with it in one statement. */
export interface DetailColumns extends RelatedColumns {
  detail_hourly: TimelineBuckets;
  detail_daily: TimelineBuckets;
  detail_activity: Array<{
    id: number;
    type: string;
    data: Record<string, unknown>;
    date_ms: number;
    user_id: number | null;
    username: string | null;
    name: string | null;
    email: string | null;
  }>;
}

export type IssueWithDetail = Issue & DetailColumns;

/**
 * The issue query with the detail's related data as JSON columns (see related-sql.ts), both
 * timelines (24h, 30d) and the latest activity: the issue in one statement instead of eight.
 */
function withDetailColumns(query: IssueQuery, userId: number | null, now: Date) {
  return withRelatedColumns(query, userId, null, now).select((eb) => [
    timelineBuckets(eb, "24h", now).as("detail_hourly"),
    timelineBuckets(eb, "30d", now).as("detail_daily"),
    jsonArrayFrom(
      eb
        .selectFrom("issue_activity as a")
        .leftJoin("users as u", "u.id", "a.user_id")
        .select((inner) => [
          "a.id",
          "a.type",
          "a.data",
          epochMs(inner.ref("a.date_created")).as("date_ms"),
          "u.id as user_id",
          "u.username",
          "u.name",
          "u.email",
        ])
        .whereRef("a.organization_id", "=", "issues.organization_id")
        .whereRef("a.issue_id", "=", "issues.id")
        .orderBy("a.date_created", "desc")
        .orderBy("a.id", "desc")
        .limit(ACTIVITY_LIMIT),
    ).as("detail_activity"),
  ]);
}

/** One issue (the query of it) with its detail columns, or undefined. */
export async function findWithDetail(query: IssueQuery, userId: number | null, now: Date): Promise<IssueWithDetail | undefined> {
  const row = (await withDetailColumns(query, userId, now).executeTakeFirst()) as IssueWithDetail | undefined;
  // json_agg keeps the subquery's order in practice, but SQL does not promise it: sorted here.
  row?.detail_activity.sort((a, b) => b.date_ms - a.date_ms || b.id - a.id);
  return row;
}

/** The detail columns of an issue already read (after an update), by its id, in one statement. */
export function loadDetail(db: Kysely<Database>, issue: Issue, userId: number | null, now: Date): Promise<IssueWithDetail | undefined> {
  const query = db.selectFrom("issues").selectAll("issues").where("issues.id", "=", Number(issue.id)).where("issues.organization_id", "=", issue.organization_id);
  return findWithDetail(query, userId, now);
}
