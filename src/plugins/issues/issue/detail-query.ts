import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { PreparedStatement } from "../../../db/prepared.js";
import type { Database } from "../../../db/schema.js";
import type { IssueUserReportCounts } from "../user-reports.js";
import type { Issue } from "../tables.js";
import { issueByRef, type IssueRef } from "../issue-ref.js";
import {
  bucketsBetween,
  epochMs,
  type IssueQuery,
  type RelatedColumns,
  type TimelineBuckets,
  withRelatedColumns,
} from "./related-sql.js";
import { timelineRange } from "./stats.js";

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
  /** Tag keys seen on the issue's events and how many distinct values each has. */
  detail_tags: Array<{ key: string; unique_values: number }>;
  /** Users subscribed to the issue (Sentry's `participants`) and users who have seen it (`seenBy`). */
  detail_participants: DetailUser[];
  detail_seen_by: DetailUser[];
}

export interface DetailUser {
  id: number;
  username: string;
  name: string;
  email: string | null;
}

export type IssueWithDetail = Issue & DetailColumns;

interface Windows {
  hourFirst: Date;
  hourLast: Date;
  dayFirst: Date;
  dayLast: Date;
}

/** Users with a per-user flag set on the issue, by user id. */
function usersFlagged(eb: ExpressionBuilder<Database, "issues">, flag: "is_subscribed" | "has_seen") {
  return jsonArrayFrom(
    eb
      .selectFrom("issue_user_state as f")
      .innerJoin("users as fu", "fu.id", "f.user_id")
      .select(["fu.id", "fu.username", "fu.name", "fu.email"])
      .whereRef("f.issue_id", "=", "issues.id")
      .where(`f.${flag}`, "=", true)
      .orderBy("fu.id"),
  );
}

/**
 * The issue query with the detail's related data as JSON columns (see related-sql.ts), both
 * timelines (24h, 30d), the latest activity, the tag summary, participants and seen-by: the
 * issue in one statement instead of eleven.
 */
function withDetailColumns(
  query: IssueQuery,
  userId: number | null,
  windows: Windows,
  userReports: IssueUserReportCounts | null,
) {
  return withRelatedColumns(query, userId, null, null, userReports).select((eb) => [
    bucketsBetween(eb, "issue_stats_hourly", windows.hourFirst, windows.hourLast).as("detail_hourly"),
    bucketsBetween(eb, "issue_stats_daily", windows.dayFirst, windows.dayLast).as("detail_daily"),
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
    jsonArrayFrom(
      eb
        .selectFrom("issue_tags as t")
        .select(["t.key", sql<number>`count(*)::int`.as("unique_values")])
        .whereRef("t.issue_id", "=", "issues.id")
        .groupBy("t.key")
        .orderBy("t.key"),
    ).as("detail_tags"),
    usersFlagged(eb, "is_subscribed").as("detail_participants"),
    usersFlagged(eb, "has_seen").as("detail_seen_by"),
  ]);
}

type DetailArgs = [organizationId: number, ref: IssueRef, userId: number | null, windows: Windows];

/**
 * GET issue runs this on every call: compiled once per shape (numeric or short id, with or
 * without a user) and run with new values (db/prepared.ts). The stand-ins are passed as values
 * only; the shape is fixed by the arguments given here.
 */
function detailStatement(kind: IssueRef["kind"], withUser: boolean, userReports: IssueUserReportCounts | null) {
  return new PreparedStatement(
    8,
    (
      db,
      organizationId: number,
      a: number | string,
      b: number,
      userId: number,
      hourFirst: Date,
      hourLast: Date,
      dayFirst: Date,
      dayLast: Date,
    ) => {
      const ref: IssueRef =
        kind === "id" ? { kind, id: a as number } : { kind, projectSlug: a as string, shortNumber: b };
      const windows = { hourFirst, hourLast, dayFirst, dayLast };
      return withDetailColumns(issueByRef(db, organizationId, ref), withUser ? userId : null, windows, userReports);
    },
  );
}

/** By shape: the kind of reference, with or without a user, with or without user report counts. */
const STATEMENTS = new Map<string, ReturnType<typeof detailStatement>>();

function statementFor(kind: IssueRef["kind"], withUser: boolean, userReports: IssueUserReportCounts | null) {
  const shape = `${kind}|${withUser}|${userReports !== null}`;
  let statement = STATEMENTS.get(shape);
  if (!statement) {
    statement = detailStatement(kind, withUser, userReports);
    STATEMENTS.set(shape, statement);
  }
  return statement;
}

async function runDetail(
  db: Kysely<Database>,
  userReports: IssueUserReportCounts | null,
  ...[organizationId, ref, userId, windows]: DetailArgs
): Promise<IssueWithDetail | undefined> {
  const statement = statementFor(ref.kind, userId !== null, userReports);
  const [a, b] = ref.kind === "id" ? [ref.id, 0] : [ref.projectSlug, ref.shortNumber];
  const row = (await statement.executeTakeFirst(
    db,
    organizationId,
    a,
    b,
    userId ?? 0,
    windows.hourFirst,
    windows.hourLast,
    windows.dayFirst,
    windows.dayLast,
  )) as IssueWithDetail | undefined;
  // json_agg keeps the subquery's order in practice, but SQL does not promise it: sorted here.
  row?.detail_activity.sort((x, y) => y.date_ms - x.date_ms || y.id - x.id);
  return row;
}

function windowsAt(now: Date): Windows {
  const hours = timelineRange("24h", now);
  const days = timelineRange("30d", now);
  return { hourFirst: hours.first, hourLast: hours.last, dayFirst: days.first, dayLast: days.last };
}

/** One issue by reference with its detail columns, or undefined. */
export function findWithDetail(
  db: Kysely<Database>,
  organizationId: number,
  ref: IssueRef,
  userId: number | null,
  now: Date,
  userReports: IssueUserReportCounts | null,
): Promise<IssueWithDetail | undefined> {
  return runDetail(db, userReports, organizationId, ref, userId, windowsAt(now));
}

/** The detail columns of an issue already read (after an update), by its id, in one statement. */
export function loadDetail(
  db: Kysely<Database>,
  issue: Issue,
  userId: number | null,
  now: Date,
  userReports: IssueUserReportCounts | null,
): Promise<IssueWithDetail | undefined> {
  const ref = { kind: "id" as const, id: Number(issue.id) };
  return runDetail(db, userReports, issue.organization_id, ref, userId, windowsAt(now));
}
