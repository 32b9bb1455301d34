import { isoDate } from "../../http/format.js";
import type { CommentSnapshot, EventSnapshot, IssueSnapshot } from "../issues/index.js";
import { issueLinks } from "../issues/index.js";
import type { LinkContext } from "../organizations/index.js";

/** `data.issue` of issue webhooks: the seed's fields (`count` an integer) plus links. */
export function issueData(issue: IssueSnapshot, links: LinkContext) {
  return {
    id: String(issue.id),
    shortId: issue.shortId,
    title: issue.title,
    culprit: issue.culprit,
    level: issue.level,
    status: issue.status,
    substatus: issue.substatus,
    statusDetails: issue.statusDetails,
    type: issue.type,
    platform: issue.platform,
    metadata: issue.metadata,
    firstSeen: isoDate(issue.firstSeen),
    lastSeen: isoDate(issue.lastSeen),
    count: issue.count,
    userCount: issue.userCount,
    project: { id: String(issue.project.id), name: issue.project.name, slug: issue.project.slug },
    ...issueLinks(links.base, links.permalinkTemplate, links.organizationSlug, issue),
  };
}

/** `data.error`: the event as the SDK sent it, plus where to find it. */
export function errorData(issue: IssueSnapshot, event: EventSnapshot, links: LinkContext) {
  const issueUrls = issueLinks(links.base, links.permalinkTemplate, links.organizationSlug, issue);
  const root = links.base ? links.base.toString().replace(/\/+$/, "") : "";
  const url = `${root}/api/0/projects/${links.organizationSlug}/${issue.project.slug}/events/${event.eventId}/`;
  return {
    ...event.payload,
    event_id: event.eventId,
    level: event.level,
    title: event.title,
    culprit: event.culprit,
    url,
    web_url: issueUrls.web_url,
    issue_url: issueUrls.url,
    issue_id: String(issue.id),
  };
}

export function commentData(issue: IssueSnapshot, comment: CommentSnapshot) {
  return {
    comment_id: String(comment.id),
    issue_id: String(issue.id),
    project_slug: issue.project.slug,
    timestamp: isoDate(comment.dateUpdated),
    comment: comment.text,
  };
}
