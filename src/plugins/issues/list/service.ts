import type { Kysely } from "kysely";
import type { Database, Issue } from "../../../db/schema.js";
import { keysetPage, type Page } from "../../../http/pagination.js";
import { parseShortId } from "../short-id.js";
import type { SearchContext } from "../search/to-sql.js";
import { issueCondition, issuesWhere } from "./filters.js";
import type { IssueFilterParams, ListIssuesQuery } from "./params.js";
import { withRelatedColumns } from "../serialize/related-sql.js";
import { hitsQuery, MAX_HITS, pageQuery } from "./queries.js";
import { type IssueSort, SORTS } from "./sorts.js";

export { MAX_HITS } from "./queries.js";

const EVENT_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export interface IssueListResult {
  page: Page<Issue>;
  /** Matching issues, counted up to MAX_HITS. */
  hits: number;
  /** True when the query named one issue directly (an event id, or a short id with `shortIdLookup`). */
  directHit: boolean;
}

export type ListParams = Pick<ListIssuesQuery, keyof IssueFilterParams | "sort" | "limit" | "cursor" | "shortIdLookup">;

/** The issue list of api.md §3.2, for one organization and caller. */
export class IssueListQuery {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ctx: SearchContext,
  ) {}

  /**
   * One page of issues with what their list items show (related-sql.ts; stats of `statsPeriod`)
   * and the hit count, in one statement: the count rides along as an uncorrelated subquery
   * (evaluated once), and is asked on its own only when the page is empty.
   */
  async list(params: ListParams, statsPeriod: "24h" | "14d" | null = null): Promise<IssueListResult> {
    const { condition, projects } = await issueCondition(this.db, params, this.ctx);
    const direct = params.query ? await this.#directHit(params.query.trim(), params.shortIdLookup, projects) : undefined;
    if (direct) return { page: singlePage(direct, params.sort), hits: 1, directHit: true };

    const { organizationId, userId, now } = this.ctx;
    const hits = hitsQuery(this.db, organizationId, condition);
    const page = await keysetPage(
      (bound) =>
        withRelatedColumns(pageQuery(this.db, organizationId, condition, params.sort, bound), userId, statsPeriod && { period: statsPeriod, now })
          .select(hits.as("list_hits"))
          .execute(),
      {
        cursor: params.cursor,
        limit: params.limit,
        keyOf: SORTS[params.sort].keyOf,
        idOf: (row) => Number(row.id),
      },
    );
    // withRelatedColumns' generic return type does not carry the column selected after it, so the
    // row is read through unknown (a direct cast is refused by stricter checkers, e.g. next build's).
    const first = page.rows[0] as unknown as { list_hits: string | number | bigint } | undefined;
    const counted = first?.list_hits ?? (await hits.executeTakeFirstOrThrow()).n;
    return { page, hits: Number(counted), directHit: false };
  }

  /** Ids of the first MAX_HITS matching issues, most recently seen first (bulk PUT / DELETE without `id`). */
  async matchingIds(filters: IssueFilterParams): Promise<number[]> {
    const { condition } = await issueCondition(this.db, filters, this.ctx);
    const rows = await issuesWhere(this.db, this.ctx.organizationId, condition)
      .select("issues.id")
      .orderBy("issues.last_seen", "desc")
      .orderBy("issues.id", "desc")
      .limit(MAX_HITS)
      .execute();
    return rows.map((row) => Number(row.id));
  }

  /** The issue an event id (always) or a short id (with `shortIdLookup`) names, within the project scope. */
  async #directHit(query: string, shortIdLookup: boolean, projects: number[] | null): Promise<Issue | undefined> {
    const organizationId = this.ctx.organizationId;
    if (EVENT_ID.test(query)) {
      const eventId = query.replaceAll("-", "").toLowerCase();
      return this.db
        .selectFrom("events")
        .innerJoin("issues", "issues.id", "events.issue_id")
        .selectAll("issues")
        // By project: (project_id, event_id) is the unique index events can be found by.
        .where("events.project_id", "in", projects ?? this.db.selectFrom("projects").select("id").where("organization_id", "=", organizationId))
        .where("events.event_id", "=", eventId)
        .where("issues.organization_id", "=", organizationId)
        .where("issues.deleted_at", "is", null)
        .executeTakeFirst();
    }
    const short = shortIdLookup ? parseShortId(query) : null;
    if (!short) return undefined;
    return this.db
      .selectFrom("issues")
      .innerJoin("projects", "projects.id", "issues.project_id")
      .selectAll("issues")
      .where("projects.organization_id", "=", organizationId)
      .where("projects.slug", "=", short.projectSlug)
      .where("issues.short_number", "=", short.shortNumber)
      .where("issues.deleted_at", "is", null)
      .$if(projects !== null, (q) => q.where("issues.project_id", "in", projects as number[]))
      .executeTakeFirst();
  }
}

/** A one-row page whose cursors lead nowhere: a direct hit has nothing before or after it. */
function singlePage(row: Issue, sort: IssueSort): Page<Issue> {
  const position = { value: SORTS[sort].keyOf(row), id: Number(row.id) };
  return { rows: [row], previous: { cursor: { ...position, isPrev: true }, results: false }, next: { cursor: { ...position, isPrev: false }, results: false } };
}
