import { expressionBuilder, type Kysely, sql } from "kysely";
import { PreparedStatement } from "../../../db/prepared.js";
import type { Database } from "../../../db/schema.js";
import type { KeysetBound } from "../../../http/pagination.js";
import { type RelatedColumns, withRelatedColumns } from "../issue/related-sql.js";
import type { IssueUserReportCounts } from "../user-reports.js";
import type { ListRow } from "./columns.js";
import type { StatsTable, TimelineSpec } from "../issue/stats.js";
import { hitsQuery, pageQuery } from "./queries.js";
import type { ListParams } from "./params.js";
import type { ListPresentation } from "./presentation.js";
import type { IssueSort } from "./sorts.js";

/**
 * The list as dashboards and Sentry's clients ask for it on every load: unresolved issues (no
 * `query`, or exactly `is:unresolved`), no other filter, the first page, any sort, optionally a
 * window ending now (`statsPeriod`). Its statement is built and compiled by Kysely once per
 * instance and shape (db/prepared.ts) instead of on every request; any other request takes the
 * general path, whose statement varies with its filters and cursor.
 */
export function isDefaultShape(params: ListParams): boolean {
  return (
    (params.query === undefined || params.query.trim() === "is:unresolved") &&
    params.status === undefined &&
    params.assignee === undefined &&
    params.environment.length === 0 &&
    (params.project.length === 0 || params.project.includes(-1)) &&
    !params.cursor &&
    (params.window === null || "periodMs" in params.window)
  );
}

type Args = [
  organizationId: number,
  userId: number,
  limit: number,
  windowStart: Date,
  windowEnd: Date,
  statsFirst: Date,
  statsLast: Date,
  countFirst: Date,
  countLast: Date,
];

/** A spec carrying only what the SQL reads (table and bucket range); key and size are the serializer's. */
const sqlSpec = (table: StatsTable, first: Date, last: Date): TimelineSpec => ({
  key: "",
  size: 0,
  table,
  first,
  last,
});

/**
 * The statement of one shape: the same builders as the general path (queries.ts,
 * related-sql.ts), given stand-ins for every value and the shape fixed by the arguments here.
 */
function statement(
  sort: IssueSort,
  userReports: IssueUserReportCounts | null,
  windowed: boolean,
  withUser: boolean,
  statsTable: StatsTable | null,
  countTable: StatsTable | null,
) {
  return new PreparedStatement(
    9,
    (
      db,
      ...[organizationId, userId, limit, windowStart, windowEnd, statsFirst, statsLast, countFirst, countLast]: Args
    ) => {
      const eb = expressionBuilder<Database, "issues">();
      // What searchCondition makes of `is:unresolved`, and withinWindow of a window that ends now.
      const unresolved = eb.and([eb("issues.status", "=", "unresolved")]);
      const condition = windowed
        ? eb.and([unresolved, eb("issues.last_seen", ">=", windowStart), eb("issues.first_seen", "<=", windowEnd)])
        : unresolved;
      const bound: KeysetBound = { after: null, order: "desc", limit };
      const page = withRelatedColumns(
        pageQuery(db, organizationId, condition, sort, bound),
        withUser ? userId : null,
        statsTable ? sqlSpec(statsTable, statsFirst, statsLast) : null,
        countTable ? sqlSpec(countTable, countFirst, countLast) : null,
        userReports,
      ).select(hitsQuery(db, organizationId, condition).as("list_hits"));
      // The page as one JSON array: the driver then makes one JSON.parse call instead of decoding
      // ~30 fields of 100 rows one by one (the driver had 23 % of the profile samples, 13 % after).
      return db.selectFrom(page.as("page")).select(sql<PageRow[]>`coalesce(json_agg(page), '[]')`.as("rows"));
    },
  );
}

/**
 * A page row as JSON carries it: the same fields as the general path's row, int8 values (id,
 * times_seen, the hit count) as JSON numbers, which the serializer reads through Number/String.
 */
export type PageRow = ListRow & RelatedColumns & { list_hits: number; sort_key: number };

const statements = new Map<string, ReturnType<typeof statement>>();

/**
 * The first page of a default-shape request ({@link isDefaultShape}), `bound.limit` rows, with
 * the related columns and the hit count, exactly as the general path reads it.
 */
export async function defaultPageRows(
  db: Kysely<Database>,
  sort: IssueSort,
  scope: { organizationId: number; userId: number | null; userReports: IssueUserReportCounts | null },
  bounds: { start: Date; end: Date } | null,
  presentation: ListPresentation,
  bound: KeysetBound,
) {
  const { stats, window } = presentation;
  const { userReports } = scope;
  const shape = [sort, bounds !== null, scope.userId !== null, stats?.table ?? "", window?.table ?? "", !!userReports];
  let prepared = statements.get(shape.join("|"));
  if (!prepared) {
    const [withUser, statsTable, countTable] = [scope.userId !== null, stats?.table ?? null, window?.table ?? null];
    prepared = statement(sort, userReports, bounds !== null, withUser, statsTable, countTable);
    statements.set(shape.join("|"), prepared);
  }
  // A stand-in the shape does not use has no placeholder in the statement: its value is never sent.
  const never = new Date(0);
  const rows = await prepared.execute(
    db,
    scope.organizationId,
    scope.userId ?? 0,
    bound.limit,
    bounds?.start ?? never,
    bounds?.end ?? never,
    stats?.first ?? never,
    stats?.last ?? never,
    window?.first ?? never,
    window?.last ?? never,
  );
  return inOrder(rows[0]?.rows ?? []);
}

/**
 * json_agg keeps the order its input arrives in, as PostgreSQL does in practice, but SQL does
 * not promise it: checked in one pass, sorted only if it is not (by the rows' own sort keys).
 */
function inOrder(rows: PageRow[]): PageRow[] {
  const before = (a: PageRow, b: PageRow) => Number(b.sort_key) - Number(a.sort_key) || Number(b.id) - Number(a.id);
  for (let i = 1; i < rows.length; i++) {
    if (before(rows[i - 1] as PageRow, rows[i] as PageRow) > 0) return rows.sort(before);
  }
  return rows;
}
