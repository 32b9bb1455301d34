import { Clock, Db, Options } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { notFound } from "../../../http/errors.js";
import { idString, isoDate } from "../../../http/format.js";
import { EventStoreToken, type StoredEvent } from "../../event-store/index.js";
import { requestBaseUrl } from "../../organizations/index.js";
import { PublicBaseUrl } from "../../organizations/tokens.js";
import { effectiveStatus } from "../issue/serialize.js";
import { formatShortId } from "../short-id.js";
import { issueLinks } from "../urls.js";
import { serializeSharedEvent, withoutSecrets } from "./event.js";
import { findSharedIssue, type SharedIssueRow } from "./service.js";

/** The metadata a title is made of; a filename without its query (it may be a URL). */
function sharedMetadata(row: SharedIssueRow) {
  const metadata = row.metadata;
  const pick = (key: string) => (typeof metadata[key] === "string" ? (metadata[key] as string) : undefined);
  return {
    title: pick("title") ?? row.title,
    ...(pick("type") !== undefined && { type: pick("type") }),
    ...(pick("value") !== undefined && { value: pick("value") }),
    ...(pick("filename") !== undefined && { filename: withoutSecrets(pick("filename") ?? null) }),
    ...(pick("function") !== undefined && { function: pick("function") }),
  };
}

/**
 * Sentry's shared issue (its `SharedGroupSerializer`), from an allowlist: what the issue is and
 * how often it happened, its project and organization by name, and its latest event
 * ({@link serializeSharedEvent}). No assignee, user counts' users, tags, activity or emails.
 */
function serializeSharedIssue(row: SharedIssueRow, latest: StoredEvent | undefined, permalink: string, now: Date) {
  const id = Number(row.id);
  return {
    id: idString(id),
    shareId: row.share_id,
    isPublic: true,
    shortId: formatShortId(row.project_slug, row.short_number),
    title: row.title,
    culprit: row.culprit,
    permalink,
    level: row.level,
    status: effectiveStatus(row, now).status,
    type: row.type,
    platform: row.platform,
    metadata: sharedMetadata(row),
    count: String(row.times_seen),
    firstSeen: isoDate(row.first_seen),
    lastSeen: isoDate(row.last_seen),
    project: {
      slug: row.project_slug,
      name: row.project_name,
      organization: { slug: row.organization_slug, name: row.organization_name },
    },
    latestEvent: latest ? serializeSharedEvent(latest) : null,
  };
}

/**
 * `GET /api/0/shared/issues/{share_id}/` (Sentry's shared issue page): no credential, the share
 * id is the capability. An unknown, malformed or revoked id is a 404 at once; the answer is never
 * cached (`no-store`), so a revoke is not outlived.
 */
export const getSharedIssue = defineEndpoint({
  method: "GET",
  path: "/api/0/shared/issues/{share_id}/",
  operationId: "issues.shared",
  summary: "Retrieve a publicly shared issue by its share id (no authentication; secrets and personal data left out)",
  auth: "none",
  handler: async ({ params, container, url, basePath }) => {
    const row = await findSharedIssue(container.resolve(Db), params.share_id);
    if (!row) throw notFound();
    const latest = await container
      .resolve(EventStoreToken)
      .latestEvent(
        { organizationId: row.organization_id, issueId: Number(row.id), environments: [], tags: [], text: [] },
        "newest",
      );
    const base = requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath);
    const template = container.resolve(Options).permalinkTemplate ?? null;
    const shortId = formatShortId(row.project_slug, row.short_number);
    const permalink = issueLinks(base, template, row.organization_slug, {
      id: Number(row.id),
      shortId,
      project: { slug: row.project_slug },
    }).web_url;
    const body = serializeSharedIssue(row, latest, permalink, container.resolve(Clock).now());
    return { body, headers: { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" } };
  },
});
