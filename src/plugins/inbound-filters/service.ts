import { ExpiringCache } from "../../cache/expiring-cache.js";
import type { Kysely, Selectable } from "kysely";
import type { Clock } from "../../clock.js";
import type { Database } from "../../db/schema.js";
import type { LegacyBrowserSubfilter } from "./browsers.js";
import { compileGlobs, type InboundFilterSettings } from "./filter.js";
import type { InboundFiltersTable } from "./tables.js";

/** A project's inbound filters as stored and as the API shows them. */
export interface StoredFilters {
  browserExtensions: boolean;
  localhost: boolean;
  webCrawlers: boolean;
  legacyBrowsers: LegacyBrowserSubfilter[];
  errorMessages: string[];
  releases: string[];
}

const NOTHING_STORED: StoredFilters = {
  browserExtensions: false,
  localhost: false,
  webCrawlers: false,
  legacyBrowsers: [],
  errorMessages: [],
  releases: [],
};

/** Projects whose settings are held at most; past it the cache starts over (it refills from one query per project). */
const MAX_CACHED_PROJECTS = 10_000;

/**
 * Reads and changes projects' inbound filters. Ingest asks for a project's settings on every
 * event, so they are cached on this object (one per instance) for `ttlMs`, patterns compiled
 * once per load; a change made through this instance takes effect here at once, on other
 * instances within `ttlMs`.
 */
export class InboundFilterService {
  readonly #cache: ExpiringCache<number, InboundFilterSettings>;

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly clock: Clock,
    ttlMs: number,
  ) {
    this.#cache = new ExpiringCache(clock, ttlMs, MAX_CACHED_PROJECTS);
  }

  /** The project's filters, ready for `filterEvent`; concurrent first requests share one query. */
  settingsOf(projectId: number): Promise<InboundFilterSettings> {
    return this.#cache.get(projectId, () => this.read(projectId).then(compiled));
  }

  async read(projectId: number, db: Kysely<Database> = this.db()): Promise<StoredFilters> {
    return (await this.readMany(db, [projectId])).get(projectId);
  }

  /** Several projects' filters in one query; a project without a row has every filter off. */
  async readMany(
    db: Kysely<Database>,
    projectIds: readonly number[],
  ): Promise<{ get(projectId: number): StoredFilters }> {
    const rows =
      projectIds.length === 0
        ? []
        : await db.selectFrom("inbound_filters").selectAll().where("project_id", "in", projectIds).execute();
    const byProject = new Map(rows.map((row) => [row.project_id, storedFrom(row)]));
    return { get: (projectId) => byProject.get(projectId) ?? { ...NOTHING_STORED } };
  }

  /** Forgets a project's cached filters (after a change committed in a transaction of the caller's). */
  forget(projectId: number): void {
    this.#cache.forget(projectId);
  }

  /**
   * Changes the given filters of a project, keeping the others; resolves to all of them after.
   * `db`: the caller's transaction, whose commit is then followed by {@link forget}.
   */
  async update(
    projectId: number,
    change: Partial<StoredFilters>,
    db: Kysely<Database> = this.db(),
  ): Promise<StoredFilters> {
    const next = { ...(await this.read(projectId, db)), ...change };
    const values = {
      browser_extensions: next.browserExtensions,
      localhost: next.localhost,
      web_crawlers: next.webCrawlers,
      legacy_browsers: [...new Set(next.legacyBrowsers)],
      error_messages: next.errorMessages,
      releases: next.releases,
      date_updated: this.clock.now(),
    };
    await db
      .insertInto("inbound_filters")
      .values({ project_id: projectId, ...values })
      .onConflict((conflict) => conflict.column("project_id").doUpdateSet(values))
      .execute();
    this.#cache.forget(projectId);
    return next;
  }
}

function storedFrom(row: Selectable<InboundFiltersTable>): StoredFilters {
  return {
    browserExtensions: row.browser_extensions,
    localhost: row.localhost,
    webCrawlers: row.web_crawlers,
    legacyBrowsers: row.legacy_browsers as LegacyBrowserSubfilter[],
    errorMessages: row.error_messages,
    releases: row.releases,
  };
}

function compiled(stored: StoredFilters): InboundFilterSettings {
  return {
    browserExtensions: stored.browserExtensions,
    localhost: stored.localhost,
    webCrawlers: stored.webCrawlers,
    legacyBrowsers: stored.legacyBrowsers,
    errorMessages: compileGlobs(stored.errorMessages),
    releases: compileGlobs(stored.releases),
  };
}
