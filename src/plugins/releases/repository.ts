import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { ApiError, badRequest, notFound } from "../../http/errors.js";
import { type ReleasesDb, withReleaseTables } from "./tables.js";

export interface ReleaseInput {
  version: string;
  projects?: string[];
  ref?: string | null;
  url?: string | null;
  dateReleased?: Date | null;
  commits?: unknown[];
}

export interface DeployInput {
  environment: string;
  name?: string | null;
  url?: string | null;
  dateStarted?: Date | null;
  dateFinished?: Date | null;
}

export interface ReleaseProjectRow {
  project_id: number;
  slug: string;
  name: string;
  platform: string | null;
  first_event: Date | null;
  last_event: Date | null;
  new_groups: number;
}

export interface ReleaseRecord {
  id: number;
  version: string;
  ref: string | null;
  url: string | null;
  dateReleased: Date | null;
  dateCreated: Date;
  commits: unknown[];
  projects: ReleaseProjectRow[];
  deployCount: number;
  lastDeploy: DeployRecord | null;
}

export interface DeployRecord {
  id: number;
  environment: string;
  name: string | null;
  url: string | null;
  dateStarted: Date | null;
  dateFinished: Date;
}

const LIST_LIMIT = 100;

/**
 * Releases of one organization. Every method takes the organization first, and every query is
 * scoped by it. A release is the organization's `release_details` row plus the core per-project
 * `releases` rows ingest maintains (first/last event, new issues).
 */
export class ReleaseRepository {
  constructor(private readonly coreDb: () => Kysely<Database>) {}

  get #db(): ReleasesDb {
    return withReleaseTables(this.coreDb());
  }

  /** Releases seen only on events get their organization row here, at first read. */
  async #materialize(db: ReleasesDb, organizationId: number, version?: string | readonly string[]): Promise<void> {
    let implicit = db
      .selectFrom("releases")
      .select((eb) => ["organization_id", "version", eb.fn.min("date_created").as("date_created")])
      .where("organization_id", "=", organizationId)
      .groupBy(["organization_id", "version"]);
    if (typeof version === "string") implicit = implicit.where("version", "=", version);
    else if (version !== undefined) implicit = implicit.where("version", "in", [...version]);
    await db
      .insertInto("release_details")
      .columns(["organization_id", "version", "date_created"])
      .expression(implicit)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async #projectIds(db: ReleasesDb, organizationId: number, refs: readonly string[]): Promise<number[]> {
    if (refs.length === 0) return [];
    const numeric = refs.filter((ref) => /^\d+$/.test(ref)).map(Number);
    const rows = await db
      .selectFrom("projects")
      .select(["id", "slug"])
      .where("organization_id", "=", organizationId)
      .where((eb) => eb.or([eb("slug", "in", refs), ...(numeric.length ? [eb("id", "in", numeric)] : [])]))
      .execute();
    const unknown = refs.filter((ref) => !rows.some((row) => row.slug === ref || String(row.id) === ref));
    if (unknown.length > 0)
      throw badRequest(`Invalid project ids or slugs: ${unknown.join(", ")}`, {
        projects: [`Invalid project ids or slugs: ${unknown.join(", ")}`],
      });
    return rows.map((row) => row.id);
  }

  /** The projects named (slugs or ids) in the organization; an unknown one is a 400 naming it. */
  projectIds(organizationId: number, refs: readonly string[]): Promise<number[]> {
    return this.#projectIds(this.#db, organizationId, refs);
  }

  async projectId(organizationId: number, ref: string): Promise<number> {
    // An unknown project in a path is a 404 (a 400 names body fields); other failures stay what they are.
    const [id] = await this.#projectIds(this.#db, organizationId, [ref]).catch((error: unknown) => {
      throw error instanceof ApiError && error.status === 400 ? notFound() : error;
    });
    return id as number;
  }

  /** Creates the release, or adds projects to an existing one; `created` tells which. */
  async upsert(
    organizationId: number,
    input: ReleaseInput,
    now: Date,
  ): Promise<{ created: boolean; release: ReleaseRecord }> {
    return this.#db.transaction().execute(async (db) => {
      const projectIds = await this.#projectIds(db, organizationId, input.projects ?? []);
      await this.#materialize(db, organizationId, input.version);
      const inserted = await db
        .insertInto("release_details")
        .values({
          organization_id: organizationId,
          version: input.version,
          ref: input.ref ?? null,
          url: input.url ?? null,
          date_released: input.dateReleased ?? null,
          commits: JSON.stringify(input.commits ?? []),
          date_created: now,
        })
        .onConflict((oc) => oc.columns(["organization_id", "version"]).doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) await this.#update(db, organizationId, input.version, input);
      if (projectIds.length > 0) {
        await db
          .insertInto("releases")
          .values(
            projectIds.map((project_id) => ({
              organization_id: organizationId,
              project_id,
              version: input.version,
              date_created: now,
            })),
          )
          .onConflict((oc) => oc.columns(["project_id", "version"]).doNothing())
          .execute();
      }
      return {
        created: inserted !== undefined,
        release: (await this.#load(db, organizationId, [input.version]))[0] as ReleaseRecord,
      };
    });
  }

  async #update(
    db: ReleasesDb,
    organizationId: number,
    version: string,
    input: Omit<ReleaseInput, "version" | "projects">,
  ): Promise<void> {
    const set = {
      ...(input.ref !== undefined && { ref: input.ref }),
      ...(input.url !== undefined && { url: input.url }),
      ...(input.dateReleased !== undefined && { date_released: input.dateReleased }),
      ...(input.commits !== undefined && { commits: JSON.stringify(input.commits) }),
    };
    if (Object.keys(set).length === 0) return;
    await db
      .updateTable("release_details")
      .set(set)
      .where("organization_id", "=", organizationId)
      .where("version", "=", version)
      .execute();
  }

  /** Changes the fields given; `projects` are added (never removed), as Sentry does. */
  async update(
    organizationId: number,
    version: string,
    input: Omit<ReleaseInput, "version">,
    now: Date,
  ): Promise<ReleaseRecord> {
    return this.#db.transaction().execute(async (db) => {
      await this.#materialize(db, organizationId, version);
      await this.#mustExist(db, organizationId, version);
      const projectIds = await this.#projectIds(db, organizationId, input.projects ?? []);
      if (projectIds.length > 0) {
        await db
          .insertInto("releases")
          .values(
            projectIds.map((project_id) => ({
              organization_id: organizationId,
              project_id,
              version,
              date_created: now,
            })),
          )
          .onConflict((oc) => oc.columns(["project_id", "version"]).doNothing())
          .execute();
      }
      await this.#update(db, organizationId, version, input);
      return (await this.#load(db, organizationId, [version]))[0] as ReleaseRecord;
    });
  }

  async #mustExist(db: ReleasesDb, organizationId: number, version: string): Promise<void> {
    const row = await db
      .selectFrom("release_details")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("version", "=", version)
      .executeTakeFirst();
    if (!row) throw notFound();
  }

  async get(organizationId: number, version: string): Promise<ReleaseRecord> {
    const db = this.#db;
    await this.#materialize(db, organizationId, version);
    const [release] = await this.#load(db, organizationId, [version]);
    if (!release) throw notFound();
    return release;
  }

  /** The releases among `versions` (in that order); unknown versions are left out. */
  async findMany(organizationId: number, versions: readonly string[]): Promise<ReleaseRecord[]> {
    if (versions.length === 0) return [];
    const db = this.#db;
    await this.#materialize(db, organizationId, versions);
    return this.#load(db, organizationId, [...versions]);
  }

  /** Newest first; `query` keeps versions starting with it (Sentry's search by prefix). */
  async list(organizationId: number, options: { projectId?: number; query?: string }): Promise<ReleaseRecord[]> {
    const db = this.#db;
    await this.#materialize(db, organizationId);
    let select = db
      .selectFrom("release_details as d")
      .select("d.version")
      .where("d.organization_id", "=", organizationId);
    if (options.projectId !== undefined) {
      const projectId = options.projectId;
      select = select.where((eb) =>
        eb.exists(
          eb
            .selectFrom("releases as r")
            .select("r.id")
            .whereRef("r.version", "=", "d.version")
            .where("r.organization_id", "=", organizationId)
            .where("r.project_id", "=", projectId),
        ),
      );
    }
    if (options.query) select = select.where("d.version", "like", `${options.query.replace(/[\\%_]/g, "\\$&")}%`);
    const rows = await select.orderBy("d.date_created", "desc").orderBy("d.id", "desc").limit(LIST_LIMIT).execute();
    return this.#load(
      db,
      organizationId,
      rows.map((row) => row.version),
    );
  }

  /** Deletes the release, its deploys and its per-project rows (issues keep their release names). */
  async delete(organizationId: number, version: string): Promise<void> {
    await this.#db.transaction().execute(async (db) => {
      await this.#materialize(db, organizationId, version);
      await this.#mustExist(db, organizationId, version);
      await db
        .deleteFrom("release_deploys")
        .where("organization_id", "=", organizationId)
        .where("version", "=", version)
        .execute();
      await db
        .deleteFrom("releases")
        .where("organization_id", "=", organizationId)
        .where("version", "=", version)
        .execute();
      await db
        .deleteFrom("release_details")
        .where("organization_id", "=", organizationId)
        .where("version", "=", version)
        .execute();
    });
  }

  async addDeploy(organizationId: number, version: string, input: DeployInput, now: Date): Promise<DeployRecord> {
    const db = this.#db;
    await this.#materialize(db, organizationId, version);
    await this.#mustExist(db, organizationId, version);
    const row = await db
      .insertInto("release_deploys")
      .values({
        organization_id: organizationId,
        version,
        environment: input.environment,
        name: input.name ?? null,
        url: input.url ?? null,
        date_started: input.dateStarted ?? null,
        date_finished: input.dateFinished ?? now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return deployRecord(row);
  }

  async listDeploys(organizationId: number, version: string): Promise<DeployRecord[]> {
    const db = this.#db;
    await this.#materialize(db, organizationId, version);
    await this.#mustExist(db, organizationId, version);
    return (await this.#deploys(db, organizationId, [version])).map(deployRecord);
  }

  /** The deploys of the versions given, newest first. */
  #deploys(db: ReleasesDb, organizationId: number, versions: readonly string[]) {
    return db
      .selectFrom("release_deploys")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("version", "in", versions)
      .orderBy("date_finished", "desc")
      .orderBy("id", "desc")
      .execute();
  }

  /** The releases named, in that order, with their projects and deploy summary (three queries). */
  async #load(db: ReleasesDb, organizationId: number, versions: string[]): Promise<ReleaseRecord[]> {
    if (versions.length === 0) return [];
    const details = await db
      .selectFrom("release_details")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("version", "in", versions)
      .execute();
    const projects = await db
      .selectFrom("releases as r")
      .innerJoin("projects as p", "p.id", "r.project_id")
      .select([
        "r.version",
        "r.project_id",
        "p.slug",
        "p.name",
        "p.platform",
        "r.first_event",
        "r.last_event",
        "r.new_groups",
      ])
      .where("r.organization_id", "=", organizationId)
      .where("r.version", "in", versions)
      .orderBy("p.slug")
      .execute();
    const deploys = await this.#deploys(db, organizationId, versions);
    const byVersion = new Map(details.map((row) => [row.version, row]));
    return versions.flatMap((version) => {
      const row = byVersion.get(version);
      if (!row) return [];
      const own = deploys.filter((deploy) => deploy.version === version);
      return [
        {
          id: row.id,
          version,
          ref: row.ref,
          url: row.url,
          dateReleased: row.date_released,
          dateCreated: row.date_created,
          commits: Array.isArray(row.commits) ? row.commits : [],
          projects: projects
            .filter((project) => project.version === version)
            .map(({ version: _v, ...project }) => project),
          deployCount: own.length,
          lastDeploy: own[0] ? deployRecord(own[0]) : null,
        },
      ];
    });
  }
}

function deployRecord(row: {
  id: number;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: Date | null;
  date_finished: Date;
}): DeployRecord {
  return {
    id: row.id,
    environment: row.environment,
    name: row.name,
    url: row.url,
    dateStarted: row.date_started,
    dateFinished: row.date_finished,
  };
}
