import type { LinkRow } from "./repository.js";

/**
 * A link object: ids are strings, `issueId` too, though apps send it as an integer. `project` is
 * the external project the link named; a link from before it was kept shows the issue's project slug.
 */
export function serializeLink(row: LinkRow) {
  const project = row.project ?? row.project_slug;
  return {
    id: String(row.id),
    issueId: String(row.issue_id),
    webUrl: row.web_url,
    project,
    identifier: row.identifier,
    serviceType: row.app_slug,
    displayName: `${project}#${row.identifier}`,
  };
}
