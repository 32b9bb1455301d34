import type { Issue } from "../tables.js";

/** What a sort key is read from: an issue row, or a list row whose timestamps are ISO text (list/columns.ts). */
export type SortKeyRow = Pick<Issue, "times_seen" | "user_count"> & {
  first_seen: Date | string;
  last_seen: Date | string;
};

/** Epoch ms of a timestamp read as a Date or as ISO text. */
const epochMs = (value: Date | string) => (typeof value === "string" ? Date.parse(value) : value.getTime());

export const ISSUE_SORTS = ["date", "new", "freq", "user"] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

export interface SortSpec {
  /** The key column; each has an `issues_by_*` index on (organization_id, key DESC, id DESC). */
  column: "issues.last_seen" | "issues.first_seen" | "issues.times_seen" | "issues.user_count";
  /** How the cursor's `value` maps to the column: epoch ms for timestamps, the number itself for counters. */
  kind: "timestamp" | "number";
  keyOf(row: SortKeyRow): number;
}

/** Every sort is descending on its key, with the issue id breaking ties (docs/http.md, "Pagination"). */
export const SORTS: Record<IssueSort, SortSpec> = {
  date: { column: "issues.last_seen", kind: "timestamp", keyOf: (row) => epochMs(row.last_seen) },
  new: { column: "issues.first_seen", kind: "timestamp", keyOf: (row) => epochMs(row.first_seen) },
  freq: { column: "issues.times_seen", kind: "number", keyOf: (row) => Number(row.times_seen) },
  user: { column: "issues.user_count", kind: "number", keyOf: (row) => row.user_count },
};
