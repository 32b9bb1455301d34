import { type Expression, expressionBuilder, type Kysely, type SqlBool } from "kysely";
import { MAX_INT4 } from "../../../db/ids.js";
import type { Database } from "../../../db/schema.js";
import { fieldErrors } from "../../../http/errors.js";
import type { SearchTerm } from "../search/ast.js";
import { assertKnownKeys } from "../search/known-keys.js";
import { parseAssigneeRef, parseSearchQuery } from "../search/parser.js";
import { type SearchContext, searchCondition } from "../search/to-sql.js";
import type { IssueFilterParams } from "./params.js";

/** A ready WHERE condition on `issues` (organization and deleted rows are the caller's). */
export type IssueCondition = Expression<SqlBool>;

/**
 * The search query (`is:unresolved` when neither `query` nor `status` is given; `query=` means
 * no filter) ANDed with `status`, `assignee`, `environment` and `project`.
 */
export function searchTerms(filters: IssueFilterParams): SearchTerm[] {
  const query = filters.query ?? (filters.status === undefined ? "is:unresolved" : "");
  const terms = parseSearchQuery(query).terms;
  if (filters.status) terms.push({ type: "is", values: [filters.status], negated: false });
  if (filters.assignee !== undefined)
    terms.push({ type: "assigned", values: [parseAssigneeRef(filters.assignee)], negated: false });
  if (filters.environment.length > 0) terms.push({ type: "environment", values: filters.environment, negated: false });
  return terms;
}

/**
 * The project ids a request is limited to, or null for every project of the organization
 * (none given, or Sentry's `-1`). An id that is not one of this organization's projects → 400.
 */
export async function projectScope(
  db: Kysely<Database>,
  organizationId: number,
  ids: readonly number[],
): Promise<number[] | null> {
  if (ids.length === 0 || ids.includes(-1)) return null;
  const wanted = [...new Set(ids)];
  const candidates = wanted.filter((id) => id <= MAX_INT4);
  const found = candidates.length
    ? new Set(
        (
          await db
            .selectFrom("projects")
            .select("id")
            .where("organization_id", "=", organizationId)
            .where("id", "in", candidates)
            .execute()
        ).map((p) => p.id),
      )
    : new Set<number>();
  const unknown = wanted.filter((id) => !found.has(id));
  if (unknown.length > 0)
    throw fieldErrors({ project: unknown.map((id) => `Unknown project "${id}" in this organization`) });
  return wanted;
}

/** Everything that selects issues, resolved once per request (project check and parse first). */
export async function issueCondition(
  db: Kysely<Database>,
  filters: IssueFilterParams,
  ctx: SearchContext,
): Promise<{ condition: IssueCondition; projects: number[] | null }> {
  const terms = searchTerms(filters);
  await assertKnownKeys(db, ctx.organizationId, terms);
  const projects = await projectScope(db, ctx.organizationId, filters.project);
  // Built here, not lazily in a WHERE callback, so a bad term (`me` without a user) fails once, up front.
  const eb = expressionBuilder<Database, "issues">();
  const search = searchCondition(eb, terms, ctx);
  return { condition: projects ? eb.and([eb("issues.project_id", "in", projects), search]) : search, projects };
}

/** Live issues of one organization matching a condition: the FROM/WHERE every list query starts from. */
export function issuesWhere(db: Kysely<Database>, organizationId: number, condition: IssueCondition) {
  // `deleted_at IS NULL` spelled out so the planner can use the partial `issues_by_*` indexes.
  return db
    .selectFrom("issues")
    .where("issues.organization_id", "=", organizationId)
    .where("issues.deleted_at", "is", null)
    .where(condition);
}
