import type { Kysely } from "kysely";
import type { Clock } from "../../clock.js";
import type { AppInstallation, Database } from "../../db/schema.js";
import { runInTransaction } from "../../db/transaction.js";
import { fieldErrors, notFound } from "../../http/errors.js";
import type { IssueLookup } from "../issues/index.js";
import type { ExternalIssueRepository, LinkRow } from "./repository.js";
import type { LinkBody } from "./schemas.js";

/** Links between issues and items in an app's external tracker (`…/svc-app-installations/{uuid}/external-issues/`). */
export class ExternalIssueService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: ExternalIssueRepository,
    private readonly issues: IssueLookup,
    private readonly clock: Clock,
  ) {}

  /**
   * Links an issue of the installation's organization: `issueId` must be one of its issues and
   * `project` that issue's project slug (else 400 naming the field). A second link from the same
   * installation to the same issue updates the first.
   */
  async link(installation: AppInstallation, body: LinkBody): Promise<{ link: LinkRow; created: boolean }> {
    return runInTransaction(this.db(), async ({ trx }) => {
      const issue = await this.issues.find(installation.organization_id, String(body.issueId), trx);
      if (!issue)
        throw fieldErrors({ issueId: ["Unknown issue: it must be an issue of the installation's organization"] });
      const project = await trx
        .selectFrom("projects")
        .select("slug")
        .where("id", "=", issue.project_id)
        .executeTakeFirstOrThrow();
      if (project.slug !== body.project)
        throw fieldErrors({ project: [`Must be the slug of the issue's project ("${project.slug}")`] });
      const { id, created } = await this.repository.upsert(trx, {
        organizationId: installation.organization_id,
        installationId: installation.id,
        issueId: Number(issue.id),
        webUrl: body.webUrl,
        identifier: body.identifier,
        now: this.clock.now(),
      });
      const link = await this.repository.find(installation.id, id, trx);
      if (!link) throw notFound();
      return { link, created };
    });
  }

  /** Removes one of the installation's links; another installation's link or an unknown id is a 404. */
  async unlink(installation: AppInstallation, linkId: string): Promise<void> {
    if (!/^\d{1,9}$/.test(linkId) || !(await this.repository.delete(installation.id, Number(linkId)))) throw notFound();
  }
}
