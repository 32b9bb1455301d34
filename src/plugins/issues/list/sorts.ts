import { type RawBuilder, sql } from "kysely";
import type { Issue } from "../tables.js";

/** An issue row's sort keys (a direct hit's row: its timestamps are the driver's Dates, milliseconds). */
export type SortKeyRow = Pick<Issue, "times_seen" | "user_count" | "first_seen" | "last_seen">;

export const ISSUE_SORTS = ["date", "new", "freq", "user"] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

type SortColumn = "issues.last_seen" | "issues.first_seen" | "issues.times_seen" | "issues.user_count";

export interface SortSpec {
  /** The key column; each has an `issues_by_*` index on (organization_id, key DESC, id DESC). */
  column: SortColumn;
  /**
   * How the cursor's `value` maps to the column: epoch microseconds for timestamps (the
   * column's own precision: a key cut to milliseconds would skip or repeat rows whose keys differ
   * below the millisecond), the number itself for counters.
   */
  kind: "timestamp" | "number";
  /** The key of an issue row, as the cursor holds it. */
  keyOf(row: SortKeyRow): number;
}

/** Every sort is descending on its key, with the issue id breaking ties (docs/http.md, "Pagination"). */
export const SORTS: Record<IssueSort, SortSpec> = {
  date: { column: "issues.last_seen", kind: "timestamp", keyOf: (row) => row.last_seen.getTime() * 1000 },
  new: { column: "issues.first_seen", kind: "timestamp", keyOf: (row) => row.first_seen.getTime() * 1000 },
  freq: { column: "issues.times_seen", kind: "number", keyOf: (row) => Number(row.times_seen) },
  user: { column: "issues.user_count", kind: "number", keyOf: (row) => row.user_count },
};

/**
 * The sort key a list row carries as `sort_key` (what its cursor holds): a timestamp as exact
 * integer epoch microseconds (whole seconds and the microseconds within them, no float).
 */
export function sortKeyExpression(sort: SortSpec): RawBuilder<string | number> {
  const column = sql.ref(sort.column);
  if (sort.kind === "number") return sql<string | number>`${column}`;
  return sql<string | number>`(extract(epoch from date_trunc('second', ${column}))::int8 * 1000000
    + extract(microseconds from ${column})::int8 % 1000000)`;
}

/** A cursor's key as the column's value: epoch microseconds as an exact timestamp literal. */
export function sortKeyValue(sort: SortSpec, value: number): RawBuilder<unknown> {
  if (sort.kind === "number") return sql`${value}`;
  const micros = ((value % 1000) + 1000) % 1000;
  const iso = new Date((value - micros) / 1000).toISOString().replace("Z", `${String(micros).padStart(3, "0")}Z`);
  return sql`${iso}::timestamptz`;
}
