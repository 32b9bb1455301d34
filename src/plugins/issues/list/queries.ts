import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { KeysetBound } from "../../../http/pagination.js";
import { selectListColumns } from "./columns.js";
import { type IssueCondition, issuesWhere } from "./filters.js";
import { type IssueSort, SORTS, type SortSpec, sortKeyExpression, sortKeyValue } from "./sorts.js";

/** `X-Hits` counts matching issues up to this many (`X-Max-Hits`); bulk changes touch at most this many. */
export const MAX_HITS = 1000;

/**
 * One keyset page in a sort's order: `ORDER BY key, id` in the direction of its
 * `issues_by_*` index and `(key, id) < cursor`, so the index is walked from the cursor on.
 */
export function pageQuery(
  db: Kysely<Database>,
  organizationId: number,
  condition: IssueCondition,
  sortName: IssueSort,
  bound: KeysetBound,
) {
  const sort = SORTS[sortName];
  const after = afterCondition(sort, bound);
  return selectListColumns(
    issuesWhere(db, organizationId, condition).$if(after !== null, (q) => q.where(after as NonNullable<typeof after>)),
  )
    .select(sortKeyExpression(sort).as("sort_key"))
    .orderBy(sort.column, bound.order)
    .orderBy("issues.id", bound.order)
    .limit(bound.limit);
}

/** `(key, id)` beyond the bound's cursor, the key at the column's full precision (sorts.ts). */
function afterCondition(sort: SortSpec, bound: KeysetBound): RawBuilder<boolean> | null {
  if (!bound.after) return null;
  const key = sortKeyValue(sort, bound.after.value);
  const beyond = sql.raw(bound.order === "desc" ? "<" : ">");
  return sql<boolean>`(${sql.ref(sort.column)}, issues.id) ${beyond} (${key}, ${bound.after.id})`;
}

/** `SELECT count(*) FROM (… LIMIT 1000)`: the count stops at MAX_HITS instead of scanning every match. */
export function hitsQuery(db: Kysely<Database>, organizationId: number, condition: IssueCondition) {
  const matching = issuesWhere(db, organizationId, condition).select(sql.lit(1).as("one")).limit(MAX_HITS);
  return db.selectFrom(matching.as("hits")).select((eb) => eb.fn.countAll().as("n"));
}
