import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { idString } from "../../../http/format.js";

/**
 * The external issue links of one issue (`…/issues/{id}/external-issues/`), from every
 * installation, oldest first. Not paginated: an installation links an issue at most once, so the
 * list is as long as the number of installed apps.
 */
export async function issueExternalIssues(db: Kysely<Database>, organizationId: number, issueId: number) {
  const links = await db
    .selectFrom("external_issues as l")
    .innerJoin("app_installations as i", "i.id", "l.installation_id")
    .innerJoin("apps as a", "a.id", "i.app_id")
    .innerJoin("issues as s", "s.id", "l.issue_id")
    .innerJoin("projects as p", "p.id", "s.project_id")
    .select([
      "l.id",
      "l.issue_id",
      "l.web_url",
      "l.identifier",
      "l.project",
      "a.slug as app_slug",
      "p.slug as project_slug",
    ])
    .where("l.organization_id", "=", organizationId)
    .where("l.issue_id", "=", issueId)
    .orderBy("l.id")
    .execute();
  // The link object the installation's external-issues endpoints serve (external-issues/serialize.ts):
  // ids are strings, `issueId` too, though apps send it as an integer.
  // `project`: the external project the link named, else (links from before) the issue's project slug.
  return links.map((link) => ({
    id: idString(link.id),
    issueId: idString(link.issue_id),
    webUrl: link.web_url,
    project: link.project ?? link.project_slug,
    identifier: link.identifier,
    serviceType: link.app_slug,
    displayName: `${link.project ?? link.project_slug}#${link.identifier}`,
  }));
}
