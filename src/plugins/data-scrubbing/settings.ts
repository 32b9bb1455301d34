import type { Kysely } from "kysely";
import { z } from "zod";
import type { Clock } from "../../clock.js";
import type { Database } from "../../db/schema.js";
import type { ScrubbingSettings } from "./scrub.js";
import type { ProjectDataScrubbingTable } from "./tables.js";

const field = z.string().trim().min(1, "must not be empty").max(200);
const fields = z.array(field).max(500, "must list at most 500 fields");

/** Sentry's data-scrubbing fields of the project `PUT` body. */
export const scrubbingSettingsBody = z.object({
  dataScrubber: z.boolean(),
  dataScrubberDefaults: z.boolean(),
  scrubIPAddresses: z.boolean(),
  sensitiveFields: fields,
  safeFields: fields,
});

/**
 * A project's settings until someone changes them: Sentry's defaults for a new project (scrubbing
 * on with the default rules, IP addresses kept). Projects that existed before data scrubbing get
 * these too (docs/data-scrubbing.md, "Upgrading").
 */
export const DEFAULT_SCRUBBING_SETTINGS: ScrubbingSettings = Object.freeze({
  dataScrubber: true,
  dataScrubberDefaults: true,
  scrubIPAddresses: false,
  sensitiveFields: Object.freeze([]) as readonly string[],
  safeFields: Object.freeze([]) as readonly string[],
});

function fromRow(row: ProjectDataScrubbingTable): ScrubbingSettings {
  return {
    dataScrubber: row.data_scrubber,
    dataScrubberDefaults: row.data_scrubber_defaults,
    scrubIPAddresses: row.scrub_ip_addresses,
    sensitiveFields: row.sensitive_fields,
    safeFields: row.safe_fields,
  };
}

interface CacheEntry {
  lookup: Promise<ScrubbingSettings>;
  expiresAt: number;
}

const MAX_CACHED_PROJECTS = 10_000;

/**
 * The projects' scrubbing settings. Ingest asks for them on every event, so they are cached per
 * project for `ttlMs` on this object (one per instance), like DSN keys: a change through this
 * instance applies at once (`forget`, after the change commits), on other instances within `ttlMs`.
 */
export class ScrubbingSettingsStore {
  readonly #cache = new Map<number, CacheEntry>();

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** The settings ingest applies to `projectId`'s events. */
  forProject(projectId: number): Promise<ScrubbingSettings> {
    const now = this.clock.now().getTime();
    const cached = this.#cache.get(projectId);
    if (cached && cached.expiresAt > now) return cached.lookup;
    if (this.#cache.size >= MAX_CACHED_PROJECTS) this.#cache.clear();
    const lookup = this.load(this.db(), [projectId]).then((settings) => settings.get(projectId)!);
    this.#cache.set(projectId, { lookup, expiresAt: now + this.ttlMs });
    lookup.catch(() => {
      if (this.#cache.get(projectId)?.lookup === lookup) this.#cache.delete(projectId);
    });
    return lookup;
  }

  /** Drops a project's cached settings: its next event reads them afresh. */
  forget(projectId: number): void {
    this.#cache.delete(projectId);
  }

  /** Each project's settings (the defaults where none are stored), read through `db`. */
  async load(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, ScrubbingSettings>> {
    const rows =
      projectIds.length === 0
        ? []
        : await db.selectFrom("project_data_scrubbing").selectAll().where("project_id", "in", projectIds).execute();
    const settings = new Map(projectIds.map((id) => [id, DEFAULT_SCRUBBING_SETTINGS]));
    for (const row of rows) settings.set(row.project_id, fromRow(row));
    return settings;
  }

  /** Stores the given fields over the project's current settings (in the caller's transaction). */
  async save(trx: Kysely<Database>, projectId: number, values: Partial<ScrubbingSettings>): Promise<void> {
    const current = (await this.load(trx, [projectId])).get(projectId)!;
    const next = { ...current, ...values };
    const row = {
      project_id: projectId,
      data_scrubber: next.dataScrubber,
      data_scrubber_defaults: next.dataScrubberDefaults,
      scrub_ip_addresses: next.scrubIPAddresses,
      sensitive_fields: [...next.sensitiveFields],
      safe_fields: [...next.safeFields],
    };
    const { project_id: _key, ...columns } = row;
    await trx
      .insertInto("project_data_scrubbing")
      .values(row)
      .onConflict((conflict) => conflict.column("project_id").doUpdateSet(columns))
      .execute();
  }
}
