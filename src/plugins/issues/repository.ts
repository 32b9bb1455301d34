import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { formatShortId } from "./short-id.js";
import type { IssueUserReportCounts } from "./user-reports.js";
import type { Issue } from "./tables.js";
import { findWithDetail, type IssueWithDetail } from "./issue/detail-query.js";
import { issueByRef, parseIssueRef } from "./issue-ref.js";

/** Issue lookups. Every query is scoped by organization; deleted issues are invisible. */
export class IssueRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** By numeric id or short id (`WEB-1A`); undefined for anything else or another organization's issue. */
  async find(
    organizationId: number,
    ref: string,
    db: Kysely<Database> = this.db(),
    forUpdate = false,
  ): Promise<Issue | undefined> {
    const parsed = parseIssueRef(ref);
    if (!parsed) return undefined;
    const query = issueByRef(db, organizationId, parsed);
    return (forUpdate ? query.forUpdate("issues") : query).executeTakeFirst();
  }

  /** `find` with everything the single-issue shape shows besides the row, in one statement. */
  async findDetail(
    organizationId: number,
    ref: string,
    userId: number | null,
    now: Date,
    userReports: IssueUserReportCounts | null = null,
  ): Promise<IssueWithDetail | undefined> {
    const parsed = parseIssueRef(ref);
    return parsed ? findWithDetail(this.db(), organizationId, parsed, userId, now, userReports) : undefined;
  }

  /**
   * What another plugin shows of issues it refers to (user feedback): a few fields of each live
   * issue of the organization, by id, in one statement. Deleted or foreign issues are absent.
   */
  async summaries(organizationId: number, ids: readonly number[]): Promise<Map<number, IssueSummary>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db()
      .selectFrom("issues as i")
      .innerJoin("projects as p", "p.id", "i.project_id")
      .select(["i.id", "i.short_number", "i.title", "i.culprit", "i.level", "i.status", "p.id as project_id", "p.slug"])
      .where("i.organization_id", "=", organizationId)
      .where("i.deleted_at", "is", null)
      .where("i.id", "in", [...new Set(ids)])
      .execute();
    return new Map(
      rows.map((row) => [
        Number(row.id),
        {
          id: String(row.id),
          shortId: formatShortId(row.slug, row.short_number),
          title: row.title,
          culprit: row.culprit,
          level: row.level,
          status: row.status,
          project: { id: String(row.project_id), slug: row.slug },
        },
      ]),
    );
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

  async releaseExists(
    db: Kysely<Database>,
    organizationId: number,
    projectId: number,
    version: string,
  ): Promise<boolean> {
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

/** An issue as another plugin shows it beside its own data (`IssueRepository.summaries`). */
export interface IssueSummary {
  id: string;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: string;
  project: { id: string; slug: string };
}
