import type { Kysely } from "kysely";
import type { Database, Issue } from "../../db/schema.js";
import { findWithDetail, type IssueWithDetail } from "./serialize/detail-query.js";
import { parseShortId } from "./short-id.js";

const MAX_BIGINT_DIGITS = 15;

/** Issue lookups. Every query is scoped by organization; deleted issues are invisible. */
export class IssueRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** By numeric id or short id (`WEB-1A`); undefined for anything else or another organization's issue. */
  async find(organizationId: number, ref: string, db: Kysely<Database> = this.db(), forUpdate = false): Promise<Issue | undefined> {
    const query = byRef(db, organizationId, ref);
    if (!query) return undefined;
    return (forUpdate ? query.forUpdate("issues") : query).executeTakeFirst();
  }

  /** `find` with everything the single-issue shape shows besides the row, in one statement. */
  async findDetail(organizationId: number, ref: string, userId: number | null, now: Date): Promise<IssueWithDetail | undefined> {
    const query = byRef(this.db(), organizationId, ref);
    return query ? findWithDetail(query, userId, now) : undefined;
  }

  /** Locks issues (in id order, like ingestion) for a change. */
  lockMany(db: Kysely<Database>, organizationId: number, ids: number[]): Promise<Issue[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("issues")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("deleted_at", "is", null)
      .where("id", "in", ids)
      .orderBy("id")
      .forUpdate()
      .execute();
  }

  /** The newest release seen in a project, by first-seen time. */
  async latestRelease(db: Kysely<Database>, organizationId: number, projectId: number): Promise<string | undefined> {
    const row = await db
      .selectFrom("releases")
      .select("version")
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .orderBy("date_created", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst();
    return row?.version;
  }

  async releaseExists(db: Kysely<Database>, organizationId: number, projectId: number, version: string): Promise<boolean> {
    const row = await db
      .selectFrom("releases")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .where("version", "=", version)
      .executeTakeFirst();
    return row !== undefined;
  }
}

/** The query of one issue by numeric id or short id, or undefined when `ref` can name none. */
function byRef(db: Kysely<Database>, organizationId: number, ref: string) {
  const query = db.selectFrom("issues").selectAll("issues").where("issues.organization_id", "=", organizationId).where("issues.deleted_at", "is", null);
  if (/^\d+$/.test(ref)) return ref.length > MAX_BIGINT_DIGITS ? undefined : query.where("issues.id", "=", Number(ref));
  const short = parseShortId(ref);
  if (!short) return undefined;
  return query
    .where("issues.project_id", "in", (eb) =>
      eb.selectFrom("projects").select("projects.id").where("projects.organization_id", "=", organizationId).where("projects.slug", "=", short.projectSlug),
    )
    .where("issues.short_number", "=", short.shortNumber);
}
