import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, sql } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";
import type { StatsTable, TimelineSpec } from "./stats.js";
import type { IssueUserReportCounts } from "../user-reports.js";

/**
 * What an issue's serialized shape shows besides its own row, as JSON columns of the query that
 * reads the issues: each a subquery by the issue's id (an index lookup), evaluated only for the
 * rows returned. One statement instead of one per related table: on a busy host each statement is
 * a round trip and a socket write and read, which cost more CPU than the subqueries.
 */
export interface RelatedColumns {
  related_project: { id: number; slug: string; name: string; platform: string | null } | null;
  related_assignee_user: { id: number; username: string; email: string | null; name: string } | null;
  related_assignee_team: { id: number; slug: string; name: string } | null;
  /** The caller's flags; null without a user or without a row. */
  related_state: {
    is_bookmarked: boolean;
    is_subscribed: boolean;
    has_seen: boolean;
    subscription_reason: string | null;
  } | null;
  /** Buckets of the requested stats period (start in ms since the epoch), or null when none was asked for. */
  related_stats: TimelineBuckets | null;
  /** Whether an event of the issue was unhandled (its `handled` tag is `no`, as Sentry's `isUnhandled`). */
  related_unhandled: boolean;
  /** Events in the request's time window (`statsPeriod`, `start`/`end`), or null without one. */
  related_window_count: number | null;
  /** The issue's user reports (`userReportCount`). */
  related_user_reports: number;
}

/** Bucket start (ms since the epoch) and count. */
export type TimelineBuckets = Array<[number, number]>;

export type IssueQuery = SelectQueryBuilder<Database, "issues", Issue>;

/** Milliseconds since the epoch, truncated as the `pg` driver truncates a timestamp to a Date. */
export const epochMs = (column: Expression<Date>) => sql<number>`floor(extract(epoch from ${column}) * 1000)::float8`;

/** The `[ms, count]` pairs of one issue's buckets in `[first, last]` of a stats table. */
export function bucketsBetween(eb: ExpressionBuilder<Database, "issues">, table: StatsTable, first: Date, last: Date) {
  // The hourly and daily tables have the same columns: typed as one of them.
  return eb
    .selectFrom(`${table as "issue_stats_hourly"} as s`)
    .select((inner) =>
      sql<TimelineBuckets>`coalesce(json_agg(json_build_array(${epochMs(inner.ref("s.bucket"))}, ${inner.ref("s.count")})), '[]')`.as(
        "buckets",
      ),
    )
    .whereRef("s.issue_id", "=", "issues.id")
    .where("s.bucket", ">=", first)
    .where("s.bucket", "<=", last);
}

/** One issue's events in the buckets of a window (by the window's bucket size). */
function countBetween(eb: ExpressionBuilder<Database, "issues">, window: TimelineSpec) {
  return eb
    .selectFrom(`${window.table as "issue_stats_hourly"} as w`)
    .select((inner) => sql<number>`coalesce(sum(${inner.ref("w.count")}), 0)::float8`.as("n"))
    .whereRef("w.issue_id", "=", "issues.id")
    .where("w.bucket", ">=", window.first)
    .where("w.bucket", "<=", window.last);
}

/**
 * Adds the {@link RelatedColumns} to a query of issues; `stats` null leaves `related_stats` null,
 * `window` null leaves `related_window_count` null, `userReports` null counts no user reports.
 */
export function withRelatedColumns<O>(
  query: SelectQueryBuilder<Database, "issues", O>,
  userId: number | null,
  stats: TimelineSpec | null,
  window: TimelineSpec | null = null,
  userReports: IssueUserReportCounts | null = null,
) {
  return query.select((eb) => [
    jsonObjectFrom(
      eb
        .selectFrom("projects as p")
        .select(["p.id", "p.slug", "p.name", "p.platform"])
        .whereRef("p.id", "=", "issues.project_id"),
    ).as("related_project"),
    jsonObjectFrom(
      eb
        .selectFrom("users as au")
        .select(["au.id", "au.username", "au.email", "au.name"])
        .whereRef("au.id", "=", "issues.assignee_user_id"),
    ).as("related_assignee_user"),
    jsonObjectFrom(
      eb
        .selectFrom("teams as at")
        .select(["at.id", "at.slug", "at.name"])
        .whereRef("at.id", "=", "issues.assignee_team_id"),
    ).as("related_assignee_team"),
    (userId === null
      ? sql<null>`null`
      : jsonObjectFrom(
          eb
            .selectFrom("issue_user_state as st")
            .select(["st.is_bookmarked", "st.is_subscribed", "st.has_seen", "st.subscription_reason"])
            .whereRef("st.issue_id", "=", "issues.id")
            .where("st.user_id", "=", userId),
        )
    ).as("related_state"),
    sql<TimelineBuckets | null>`${stats === null ? sql`null` : bucketsBetween(eb, stats.table, stats.first, stats.last)}`.as(
      "related_stats",
    ),
    eb
      .exists(
        eb
          .selectFrom("issue_tags as ut")
          .select(sql.lit(1).as("one"))
          .whereRef("ut.issue_id", "=", "issues.id")
          .where("ut.key", "=", "handled")
          .where("ut.value", "=", "no"),
      )
      .$castTo<boolean>()
      .as("related_unhandled"),
    sql<number | null>`${window === null ? sql`null` : countBetween(eb, window)}`.as("related_window_count"),
    sql<number>`${userReports === null ? sql`0` : userReports.countOfIssue(eb)}`.as("related_user_reports"),
  ]);
}

/** Whether a row was read with {@link withRelatedColumns}. */
export function hasRelatedColumns<R extends object>(row: R | (R & RelatedColumns)): row is R & RelatedColumns {
  return "related_project" in row;
}
