import { type AliasedRawBuilder, type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import type { Database } from "../../db/schema.js";

/** What the counts can be grouped by (Sentry's `groupBy` values that Faultline keeps). */
export const SESSION_GROUPS = ["project", "release", "environment"] as const;
export type SessionGroup = (typeof SESSION_GROUPS)[number];

const COLUMN: Record<SessionGroup, string> = { project: "project_id", release: "release", environment: "environment" };

/** The counts of one group over one interval, or over the whole window. */
export interface SessionCounts {
  /** Sessions started. */
  sessions: number;
  /** Sessions that had errors but neither crashed nor ended abnormally. */
  errored: number;
  abnormal: number;
  crashed: number;
  /** Distinct users (`did`), and those of them whose session crashed. */
  users: number;
  crashedUsers: number;
}

export interface SessionGroupCounts {
  by: Partial<Record<SessionGroup, string | number | null>>;
  totals: SessionCounts;
  /** One entry per interval of the window. */
  series: SessionCounts[];
}

export interface SessionCountsQuery {
  /** The organization's projects to count (already checked to be the organization's). */
  projectIds: readonly number[];
  /** Empty: every environment. `''` stands for sessions sent without one. */
  environments: readonly string[];
  /** Empty: every release. */
  releases: readonly string[];
  /** Aligned to whole hours; `end` exclusive. */
  start: Date;
  end: Date;
  intervalMs: number;
  groupBy: readonly SessionGroup[];
}

const zero = (): SessionCounts => ({ sessions: 0, errored: 0, abnormal: 0, crashed: 0, users: 0, crashedUsers: 0 });

type Row = Record<string, unknown> & { slot: number | null };

/**
 * The session counts of a window, per group and per interval: three grouped reads (the
 * counters, the unhealthy sessions, the users). Users are counted distinct over each interval
 * and over the whole window (a user of two intervals is one user of the window), in one
 * `GROUPING SETS` query.
 */
export async function sessionCounts(db: Kysely<Database>, query: SessionCountsQuery): Promise<SessionGroupCounts[]> {
  const intervals = Math.max(1, Math.ceil((query.end.getTime() - query.start.getTime()) / query.intervalMs));
  if (query.projectIds.length === 0) return [];
  const [counters, unhealthy, users] = await Promise.all([
    grouped(db, "release_health_buckets", query, [
      sql`sum(sessions)::float8`.as("sessions"),
      sql`sum(errored)::float8`.as("errored"),
      sql`sum(abnormal)::float8`.as("abnormal"),
      sql`sum(crashed)::float8`.as("crashed"),
    ]),
    grouped(db, "release_health_unhealthy_sessions", query, [
      sql`(count(*) FILTER (WHERE status = 1))::float8`.as("errored"),
      sql`(count(*) FILTER (WHERE status = 2))::float8`.as("abnormal"),
      sql`(count(*) FILTER (WHERE status = 3))::float8`.as("crashed"),
    ]),
    grouped(
      db,
      "release_health_users",
      query,
      [
        sql`count(DISTINCT user_hash)::float8`.as("users"),
        sql`(count(DISTINCT user_hash) FILTER (WHERE crashed))::float8`.as("crashed_users"),
      ],
      true,
    ),
  ]);

  const groups = new Map<string, SessionGroupCounts>();
  const groupOf = (row: Row) => {
    const by: SessionGroupCounts["by"] = {};
    for (const group of query.groupBy) {
      const value = row[COLUMN[group]];
      by[group] = group === "environment" && value === "" ? null : (value as string | number);
    }
    const key = JSON.stringify(by);
    let found = groups.get(key);
    if (!found) {
      found = { by, totals: zero(), series: Array.from({ length: intervals }, zero) };
      groups.set(key, found);
    }
    return found;
  };
  const add = (row: Row, fields: ReadonlyArray<readonly [keyof SessionCounts, string]>, toTotals: boolean) => {
    const group = groupOf(row);
    const targets = row.slot === null ? [group.totals] : [group.series[row.slot], ...(toTotals ? [group.totals] : [])];
    for (const target of targets)
      if (target) for (const [field, column] of fields) target[field] += Number(row[column] ?? 0);
  };
  const statusFields = [
    ["errored", "errored"],
    ["abnormal", "abnormal"],
    ["crashed", "crashed"],
  ] as const;
  for (const row of counters) add(row, [["sessions", "sessions"], ...statusFields], true);
  for (const row of unhealthy) add(row, statusFields, true);
  // The users query has its own window totals (the rows whose slot is null).
  for (const row of users)
    add(
      row,
      [
        ["users", "users"],
        ["crashedUsers", "crashed_users"],
      ],
      false,
    );
  return [...groups.values()];
}

type SessionTable = "release_health_buckets" | "release_health_unhealthy_sessions" | "release_health_users";

/**
 * One table's rows of the window, aggregated per group and interval (`slot`); `withWindowTotals`
 * adds a row per group over the whole window (its `slot` null), for what does not add up
 * across intervals (distinct users).
 */
async function grouped(
  db: Kysely<Database>,
  table: SessionTable,
  query: SessionCountsQuery,
  aggregates: ReadonlyArray<AliasedRawBuilder<unknown, string>>,
  withWindowTotals = false,
): Promise<Row[]> {
  const groupColumns = query.groupBy.map((group) => sql.ref(COLUMN[group]));
  const slot = sql<number>`floor((extract(epoch FROM bucket) * 1000 - ${query.start.getTime()}) / ${query.intervalMs})::integer`;
  const keys = [...query.groupBy.map((group) => COLUMN[group]), "slot"];
  const perSlot = sql.join([...groupColumns, sql.ref("slot")]);
  const window = sql.join(groupColumns.length ? groupColumns : [sql``]);
  const rows = await db
    .selectFrom(db.selectFrom(table).selectAll().select(slot.as("slot")).where(windowFilter(query)).as("window"))
    .select([...keys.map((key) => sql.ref(key).as(key)), ...aggregates])
    .groupBy(withWindowTotals ? sql`GROUPING SETS ((${perSlot}), (${window}))` : perSlot)
    .execute();
  return rows as Row[];
}

function windowFilter(query: SessionCountsQuery): RawBuilder<SqlBool> {
  const conditions = [
    sql`project_id = ANY(${[...query.projectIds]}::integer[])`,
    sql`bucket >= ${query.start}`,
    sql`bucket < ${query.end}`,
  ];
  if (query.environments.length > 0) conditions.push(sql`environment = ANY(${[...query.environments]}::text[])`);
  if (query.releases.length > 0) conditions.push(sql`release = ANY(${[...query.releases]}::text[])`);
  return sql<SqlBool>`${sql.join(conditions, sql` AND `)}`;
}
