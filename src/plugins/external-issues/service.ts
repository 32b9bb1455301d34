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
   * Links an issue of the installation's organization (`issueId` must be one of its issues, else
   * 400 naming the field). `project` is the external tracker's project, as in Sentry, kept as sent
   * and shown in the link (`project`, `displayName`); an older app's value, the issue's own project
   * slug, is a project name like any other and reads as before. A second link from the same
   * installation to the same issue updates the first.
   */
  async link(installation: AppInstallation, body: LinkBody): Promise<{ link: LinkRow; created: boolean }> {
    return runInTransaction(this.db(), async ({ trx }) => {
      const issue = await this.issues.find(installation.organization_id, String(body.issueId), trx);
      if (!issue)
        throw fieldErrors({ issueId: ["Unknown issue: it must be an issue of the installation's organization"] });
      const { id, created } = await this.repository.upsert(trx, {
        organizationId: installation.organization_id,
        installationId: installation.id,
        issueId: Number(issue.id),
        webUrl: body.webUrl,
        identifier: body.identifier,
        project: body.project,
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
