import { ExpiringCache } from "../../cache/expiring-cache.js";
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

/**
 * An organization's default until it is set: nothing forced (Sentry's organization settings are
 * off until an owner turns them on).
 */
export const ORGANIZATION_DEFAULT_SETTINGS: ScrubbingSettings = Object.freeze({
  dataScrubber: false,
  dataScrubberDefaults: false,
  scrubIPAddresses: false,
  sensitiveFields: Object.freeze([]) as readonly string[],
  safeFields: Object.freeze([]) as readonly string[],
});

/**
 * What ingest applies, as Sentry combines them: what the organization turns on is on for every
 * project (a project cannot turn it off), and both lists of fields apply.
 */
export function effectiveSettings(project: ScrubbingSettings, organization: ScrubbingSettings): ScrubbingSettings {
  const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];
  return {
    dataScrubber: project.dataScrubber || organization.dataScrubber,
    dataScrubberDefaults: project.dataScrubberDefaults || organization.dataScrubberDefaults,
    scrubIPAddresses: project.scrubIPAddresses || organization.scrubIPAddresses,
    sensitiveFields: union(project.sensitiveFields, organization.sensitiveFields),
    safeFields: union(project.safeFields, organization.safeFields),
  };
}

type SettingsRow = Omit<ProjectDataScrubbingTable, "project_id">;

function toColumns(settings: ScrubbingSettings): SettingsRow {
  return {
    data_scrubber: settings.dataScrubber,
    data_scrubber_defaults: settings.dataScrubberDefaults,
    scrub_ip_addresses: settings.scrubIPAddresses,
    sensitive_fields: [...settings.sensitiveFields],
    safe_fields: [...settings.safeFields],
  };
}

function fromRow(row: SettingsRow): ScrubbingSettings {
  return {
    dataScrubber: row.data_scrubber,
    dataScrubberDefaults: row.data_scrubber_defaults,
    scrubIPAddresses: row.scrub_ip_addresses,
    sensitiveFields: row.sensitive_fields,
    safeFields: row.safe_fields,
  };
}

const MAX_CACHED_PROJECTS = 10_000;

/**
 * The projects' scrubbing settings and their organizations' defaults. Ingest asks for them on
 * every event, so the effective settings are cached per project for `ttlMs` on this object (one
 * per instance), like DSN keys: a change through this instance applies at once (`forget`,
 * `forgetAll`, after the change commits), on other instances within `ttlMs`.
 */
export class ScrubbingSettingsStore {
  readonly #cache: ExpiringCache<number, ScrubbingSettings>;

  constructor(
    private readonly db: () => Kysely<Database>,
    clock: Clock,
    ttlMs: number,
  ) {
    this.#cache = new ExpiringCache(clock, ttlMs, MAX_CACHED_PROJECTS);
  }

  /** The settings ingest applies to `projectId`'s events: its own, with its organization's default. */
  forProject(projectId: number): Promise<ScrubbingSettings> {
    return this.#cache.get(projectId, () => this.#effective(this.db(), projectId));
  }

  /** Drops a project's cached settings: its next event reads them afresh. */
  forget(projectId: number): void {
    this.#cache.forget(projectId);
  }

  /** Drops every cached project (an organization's default changed). */
  forgetAll(): void {
    this.#cache.forgetAll();
  }

  async #effective(db: Kysely<Database>, projectId: number): Promise<ScrubbingSettings> {
    const [own, project] = await Promise.all([
      this.load(db, [projectId]),
      db.selectFrom("projects").select("organization_id").where("id", "=", projectId).executeTakeFirst(),
    ]);
    const organization = project
      ? (await this.loadOrganizations(db, [project.organization_id])).get(project.organization_id)!
      : ORGANIZATION_DEFAULT_SETTINGS;
    return effectiveSettings(own.get(projectId)!, organization);
  }

  /** Each project's own settings (the defaults where none are stored), read through `db`. */
  async load(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, ScrubbingSettings>> {
    const rows =
      projectIds.length === 0
        ? []
        : await db.selectFrom("project_data_scrubbing").selectAll().where("project_id", "in", projectIds).execute();
    const settings = new Map(projectIds.map((id) => [id, DEFAULT_SCRUBBING_SETTINGS]));
    for (const row of rows) settings.set(row.project_id, fromRow(row));
    return settings;
  }

  /** Each organization's default (nothing forced where none is stored), read through `db`. */
  async loadOrganizations(
    db: Kysely<Database>,
    organizationIds: readonly number[],
  ): Promise<Map<number, ScrubbingSettings>> {
    const rows =
      organizationIds.length === 0
        ? []
        : await db
            .selectFrom("organization_data_scrubbing")
            .selectAll()
            .where("organization_id", "in", organizationIds)
            .execute();
    const settings = new Map(organizationIds.map((id) => [id, ORGANIZATION_DEFAULT_SETTINGS]));
    for (const row of rows) settings.set(row.organization_id, fromRow(row));
    return settings;
  }

  /** Stores the given fields over the project's current settings (in the caller's transaction). */
  async save(trx: Kysely<Database>, projectId: number, values: Partial<ScrubbingSettings>): Promise<void> {
    const current = (await this.load(trx, [projectId])).get(projectId)!;
    const columns = toColumns({ ...current, ...values });
    await trx
      .insertInto("project_data_scrubbing")
      .values({ project_id: projectId, ...columns })
      .onConflict((conflict) => conflict.column("project_id").doUpdateSet(columns))
      .execute();
  }

  /** Stores the given fields over the organization's current default (in the caller's transaction). */
  async saveOrganization(
    trx: Kysely<Database>,
    organizationId: number,
    values: Partial<ScrubbingSettings>,
  ): Promise<void> {
    const current = (await this.loadOrganizations(trx, [organizationId])).get(organizationId)!;
    const columns = toColumns({ ...current, ...values });
    await trx
      .insertInto("organization_data_scrubbing")
      .values({ organization_id: organizationId, ...columns })
      .onConflict((conflict) => conflict.column("organization_id").doUpdateSet(columns))
      .execute();
  }
}
