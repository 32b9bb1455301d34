import type { LinkRow } from "./repository.js";

/** A link object: ids are strings, `issueId` too, though apps send it as an integer. */
export function serializeLink(row: LinkRow) {
  return {
    id: String(row.id),
    issueId: String(row.issue_id),
    webUrl: row.web_url,
    project: row.project_slug,
    identifier: row.identifier,
    serviceType: row.app_slug,
    displayName: `${row.project_slug}#${row.identifier}`,
  };
}
