import { type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from "kysely";
import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/postgres";
import type { Database, Issue } from "../../../db/schema.js";
import { timelineRange, timelineTable, type StatsPeriod } from "./stats.js";

/** How many activity entries the detail shows, newest first. */
export const ACTIVITY_LIMIT = 100;

/** Everything the single-issue shape shows besides the issue row, read with it in one statement. */
export interface DetailParts {
  project: { id: number; slug: string; name: string; platform: string | null } | null;
  assigneeUser: { id: number; username: string; email: string | null; name: string } | null;
  assigneeTeam: { id: number; slug: string; name: string } | null;
  /** The caller's flags; null without a user or without a row. */
  state: { is_bookmarked: boolean; is_subscribed: boolean; has_seen: boolean } | null;
  /** Bucket start (ms since the epoch) and count, within the 24h and 30d windows. */
  hourly: Array<{ bucket_ms: number; count: number }>;
  daily: Array<{ bucket_ms: number; count: number }>;
  activity: Array<{
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

type IssueQuery = SelectQueryBuilder<Database, "issues", Issue>;

/** Milliseconds since the epoch, as the `pg` driver would truncate a timestamp to a Date. */
const epochMs = (column: Expression<Date>) => sql<number>`floor(extract(epoch from ${column}) * 1000)::float8`;

function buckets(eb: ExpressionBuilder<Database, "issues">, period: StatsPeriod, now: Date) {
  const { first, last } = timelineRange(period, now);
  // The hourly and daily tables have the same columns: typed as one of them.
  const table = timelineTable(period) as "issue_stats_hourly";
  return jsonArrayFrom(
    eb
      .selectFrom(`${table} as s`)
      .select((inner) => [epochMs(inner.ref("s.bucket")).as("bucket_ms"), "s.count"])
      .whereRef("s.issue_id", "=", "issues.id")
      .where("s.bucket", ">=", first)
      .where("s.bucket", "<=", last),
  );
}

/**
 * The issue query with the detail's related data as JSON columns: the project, the assignee, the
 * caller's flags, both timelines and the latest activity. One statement instead of eight; the
 * subqueries are each an index lookup by the issue's id.
 */
export function withDetailParts(query: IssueQuery, userId: number | null, now: Date) {
  return query.select((eb) => [
    jsonObjectFrom(eb.selectFrom("projects as p").select(["p.id", "p.slug", "p.name", "p.platform"]).whereRef("p.id", "=", "issues.project_id")).as("detail_project"),
    jsonObjectFrom(
      eb.selectFrom("users as au").select(["au.id", "au.username", "au.email", "au.name"]).whereRef("au.id", "=", "issues.assignee_user_id"),
    ).as("detail_assignee_user"),
    jsonObjectFrom(eb.selectFrom("teams as at").select(["at.id", "at.slug", "at.name"]).whereRef("at.id", "=", "issues.assignee_team_id")).as("detail_assignee_team"),
    (userId === null
      ? sql<null>`null`
      : jsonObjectFrom(
          eb
            .selectFrom("issue_user_state as st")
            .select(["st.is_bookmarked", "st.is_subscribed", "st.has_seen"])
            .whereRef("st.issue_id", "=", "issues.id")
            .where("st.user_id", "=", userId),
        )
    ).as("detail_state"),
    buckets(eb, "24h", now).as("detail_hourly"),
    buckets(eb, "30d", now).as("detail_daily"),
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

/** Runs a query built by `withDetailParts`: the issue row and its parts apart, or undefined. */
export async function executeDetail(query: ReturnType<typeof withDetailParts>): Promise<{ issue: Issue; parts: DetailParts } | undefined> {
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const {
    detail_project: project,
    detail_assignee_user: assigneeUser,
    detail_assignee_team: assigneeTeam,
    detail_state: state,
    detail_hourly: hourly,
    detail_daily: daily,
    detail_activity: activity,
    ...issue
  } = row;
  // json_agg keeps the subquery's order in practice, but SQL does not promise it: sorted here.
  const sorted = [...(activity as DetailParts["activity"])].sort((a, b) => b.date_ms - a.date_ms || b.id - a.id);
  return {
    issue: issue as Issue,
    parts: { project, assigneeUser, assigneeTeam, state, hourly, daily, activity: sorted } as DetailParts,
  };
}

/** The parts of an issue already read (after an update): by its id, in one statement. */
export async function loadDetailParts(db: Kysely<Database>, issue: Issue, userId: number | null, now: Date): Promise<DetailParts | undefined> {
  const query = db.selectFrom("issues").selectAll("issues").where("issues.id", "=", Number(issue.id)).where("issues.organization_id", "=", issue.organization_id);
  return (await executeDetail(withDetailParts(query, userId, now)))?.parts;
}
