import type { LinkRow } from "./repository.js";

/** A link object (platform.md §2): `issueId` is a string though it is sent as an integer (seed). */
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
