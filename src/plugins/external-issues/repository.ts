import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";

/** External issue links, always reached through their installation or organization. */
export class ExternalIssueRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** Links with what their serialization needs: the issue's project slug and the app's slug. */
  private linkRows(db: Kysely<Database> = this.db()) {
    return db
      .selectFrom("external_issues as x")
      .innerJoin("issues as i", "i.id", "x.issue_id")
      .innerJoin("projects as p", "p.id", "i.project_id")
      .innerJoin("app_installations as inst", "inst.id", "x.installation_id")
      .innerJoin("apps as a", "a.id", "inst.app_id")
      .select([
        "x.id",
        "x.issue_id",
        "x.web_url",
        "x.identifier",
        "x.date_created",
        "x.project",
        "p.slug as project_slug",
        "a.slug as app_slug",
      ])
      .where("i.deleted_at", "is", null);
  }

  /** One installation's links, newest first. */
  list(installationId: number, bound: KeysetBound) {
    const condition = keysetCondition(bound, "x.date_created", "x.id");
    let query = this.linkRows().where("x.installation_id", "=", installationId);
    if (condition) query = query.where(condition);
    return query.orderBy("x.date_created", bound.order).orderBy("x.id", bound.order).limit(bound.limit).execute();
  }

  find(installationId: number, id: number, db: Kysely<Database> = this.db()) {
    return this.linkRows(db).where("x.installation_id", "=", installationId).where("x.id", "=", id).executeTakeFirst();
  }

  /** Creates the installation's link to an issue, or updates the one it has: at most one per installation per issue. */
  async upsert(
    db: Kysely<Database>,
    values: {
      organizationId: number;
      installationId: number;
      issueId: number;
      webUrl: string;
      identifier: string;
      project: string;
      now: Date;
    },
  ): Promise<{ id: number; created: boolean }> {
    const row = await db
      .insertInto("external_issues")
      .values({
        organization_id: values.organizationId,
        installation_id: values.installationId,
        issue_id: values.issueId,
        web_url: values.webUrl,
        identifier: values.identifier,
        project: values.project,
        date_created: values.now,
      })
      .onConflict((oc) =>
        oc
          .columns(["installation_id", "issue_id"])
          .doUpdateSet({ web_url: values.webUrl, identifier: values.identifier, project: values.project }),
      )
      // PostgreSQL's idiom for "inserted or updated?": a freshly inserted row version has no xmax.
      .returning(["id", sql<boolean>`(xmax = 0)`.as("created")])
      .executeTakeFirstOrThrow();
    return { id: row.id, created: row.created };
  }

  /** Deletes one of the installation's links; false when it has no such link. */
  async delete(installationId: number, id: number): Promise<boolean> {
    const result = await this.db()
      .deleteFrom("external_issues")
      .where("installation_id", "=", installationId)
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

export type LinkRow = Awaited<ReturnType<ExternalIssueRepository["list"]>>[number];
