import type { Issue } from "../../../db/schema.js";

export const ISSUE_SORTS = ["date", "new", "freq", "user"] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

export interface SortSpec {
  /** The key column; each has an `issues_by_*` index on (organization_id, key DESC, id DESC). */
  column: "issues.last_seen" | "issues.first_seen" | "issues.times_seen" | "issues.user_count";
  /** How the cursor's `value` maps to the column: epoch ms for timestamps, the number itself for counters. */
  kind: "timestamp" | "number";
  keyOf(row: Issue): number;
}

/** Every sort is descending on its key, with the issue id breaking ties (api.md §3.2). */
export const SORTS: Record<IssueSort, SortSpec> = {
  date: { column: "issues.last_seen", kind: "timestamp", keyOf: (row) => row.last_seen.getTime() },
  new: { column: "issues.first_seen", kind: "timestamp", keyOf: (row) => row.first_seen.getTime() },
  freq: { column: "issues.times_seen", kind: "number", keyOf: (row) => Number(row.times_seen) },
  user: { column: "issues.user_count", kind: "number", keyOf: (row) => row.user_count },
};
