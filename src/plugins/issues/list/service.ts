import { expressionBuilder, type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";
import { keysetPage, type Page } from "../../../http/pagination.js";
import { parseShortId } from "../short-id.js";
import type { SearchContext } from "../search/to-sql.js";
import { type IssueCondition, issueCondition, issuesWhere } from "./filters.js";
import { type IssueFilterParams, type ListParams, windowBounds } from "./params.js";
import { listPresentation, type ListPresentation } from "./presentation.js";
import { withRelatedColumns } from "../issue/related-sql.js";
import type { IssueUserReportCounts } from "../user-reports.js";
import type { ListRow } from "./columns.js";
import { defaultPageRows, isDefaultShape } from "./default-page.js";
import { hitsQuery, MAX_HITS, pageQuery } from "./queries.js";
import { type IssueSort, SORTS } from "./sorts.js";

export { MAX_HITS } from "./queries.js";

const EVENT_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export interface IssueListResult {
  /** List rows (list/columns.ts), or the issue row of a direct hit. */
  page: Page<ListRow | Issue>;
  /** Matching issues, counted up to MAX_HITS. */
  hits: number;
  /** True when the query named one issue directly (an event id, or a short id with `shortIdLookup`). */
  directHit: boolean;
  /** The stats series and window the page's counts were read for. */
  presentation: ListPresentation;
}

/** The issue list (`GET /api/0/organizations/{org}/issues/`), for one organization and caller. */
export class IssueListQuery {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ctx: SearchContext,
    private readonly userReports: IssueUserReportCounts | null = null,
  ) {}

  /**
   * One page of issues with what their list items show (related-sql.ts; stats of `statsPeriod`)
   * and the hit count, in one statement: the count rides along as an uncorrelated subquery
   * (evaluated once), and is asked on its own only when the page is empty.
   */
  async list(params: ListParams): Promise<IssueListResult> {
    const bounds = windowBounds(params.window, this.ctx.now);
    const presentation = listPresentation(params, this.ctx.now);
    if (isDefaultShape(params)) return this.#defaultList(params, bounds, presentation);
    const { condition: filtered, projects } = await issueCondition(this.db, params, this.ctx);
    const condition = bounds ? withinWindow(filtered, bounds, this.ctx.now) : filtered;
    const direct = params.query
      ? await this.#directHit(params.query.trim(), params.shortIdLookup, projects)
      : undefined;
    if (direct) return { page: singlePage(direct, params.sort), hits: 1, directHit: true, presentation };

    const { organizationId, userId } = this.ctx;
    const hits = hitsQuery(this.db, organizationId, condition);
    const page = await keysetPage(
      (bound) =>
        withRelatedColumns(
          pageQuery(this.db, organizationId, condition, params.sort, bound),
          userId,
          presentation.stats,
          presentation.window,
          this.userReports,
        )
          .select(hits.as("list_hits"))
          .execute(),
      {
        cursor: params.cursor,
        limit: params.limit,
        keyOf: (row) => Number(row.sort_key),
        idOf: (row) => Number(row.id),
      },
    );
    const counted = hitsOf(page.rows) ?? (await hits.executeTakeFirstOrThrow()).n;
    return { page, hits: Number(counted), directHit: false, presentation };
  }

  /**
   * The list as most requests ask for it (default-page.ts): the same rows and count from a
   * statement compiled once. `is:unresolved` names no issue directly, and a first page that is
   * empty means nothing matches, so neither needs a statement of its own.
   */
  async #defaultList(
    params: ListParams,
    bounds: { start: Date; end: Date } | null,
    presentation: ListPresentation,
  ): Promise<IssueListResult> {
    const { organizationId, userId } = this.ctx;
    const page = await keysetPage(
      (bound) =>
        defaultPageRows(
          this.db,
          params.sort,
          { organizationId, userId, userReports: this.userReports },
          bounds,
          presentation,
          bound,
        ),
      {
        cursor: params.cursor,
        limit: params.limit,
        keyOf: (row) => Number(row.sort_key),
        idOf: (row) => Number(row.id),
      },
    );
    return { page, hits: Number(hitsOf(page.rows) ?? 0), directHit: false, presentation };
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

  /** Those of `ids` that are live issues of this organization's project `projectId`. */
  async idsInProject(ids: readonly number[], projectId: number): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom("issues")
      .select("issues.id")
      .where("issues.organization_id", "=", this.ctx.organizationId)
      .where("issues.project_id", "=", projectId)
      .where("issues.deleted_at", "is", null)
      .where("issues.id", "in", [...ids])
      .execute();
    return rows.map((row) => Number(row.id));
  }

  /** The issue an event id (always) or a short id (with `shortIdLookup`) names, within the project scope. */
  async #directHit(query: string, shortIdLookup: boolean, projects: number[] | null): Promise<Issue | undefined> {
    const organizationId = this.ctx.organizationId;
    if (EVENT_ID.test(query)) {
      const eventId = query.replaceAll("-", "").toLowerCase();
      return (
        this.db
          .selectFrom("events")
          .innerJoin("issues", "issues.id", "events.issue_id")
          .selectAll("issues")
          // By project: (project_id, event_id) is the unique index events can be found by.
          .where(
            "events.project_id",
            "in",
            projects ?? this.db.selectFrom("projects").select("id").where("organization_id", "=", organizationId),
          )
          .where("events.event_id", "=", eventId)
          .where("issues.organization_id", "=", organizationId)
          .where("issues.deleted_at", "is", null)
          .executeTakeFirst()
      );
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

/**
 * Issues with an event in the window (Sentry's `statsPeriod` / `start`–`end`). A window that
 * ends now is exactly `lastSeen >= start`; one that ended earlier also needs a counted hour
 * within it (hour-granular at its edges).
 */
function withinWindow(condition: IssueCondition, bounds: { start: Date; end: Date }, now: Date): IssueCondition {
  const eb = expressionBuilder<Database, "issues">();
  const parts = [condition, eb("issues.last_seen", ">=", bounds.start), eb("issues.first_seen", "<=", bounds.end)];
  if (bounds.end.getTime() < now.getTime()) {
    const fromHour = new Date(Math.floor(bounds.start.getTime() / 3_600_000) * 3_600_000);
    parts.push(
      eb.exists(
        eb
          .selectFrom("issue_stats_hourly as h")
          .select(sql.lit(1).as("one"))
          .whereRef("h.issue_id", "=", "issues.id")
          .where("h.bucket", ">=", fromHour)
          .where("h.bucket", "<=", bounds.end),
      ),
    );
  }
  return eb.and(parts);
}

/** The hit count a page's rows carry (its first row's `list_hits`), or undefined for an empty page. */
function hitsOf(rows: readonly object[]): string | number | bigint | undefined {
  // withRelatedColumns' generic return type does not carry the column selected after it, so the
  // row is read through unknown (a direct cast is refused by stricter checkers, e.g. next build's).
  return (rows[0] as unknown as { list_hits: string | number | bigint } | undefined)?.list_hits;
}

/** A one-row page whose cursors lead nowhere: a direct hit has nothing before or after it. */
function singlePage(row: Issue, sort: IssueSort): Page<Issue> {
  const position = { value: SORTS[sort].keyOf(row), id: Number(row.id) };
  return {
    rows: [row],
    previous: { cursor: { ...position, isPrev: true }, results: false },
    next: { cursor: { ...position, isPrev: false }, results: false },
  };
}
