import { z } from "zod";
import type { DependencyContainer } from "tsyringe";
import { Clock } from "../../../container/tokens.js";
import type { Issue } from "../tables.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { pageReply } from "../../../http/pagination.js";
import {
  environmentsParam,
  eventListQuery,
  eventListTerms,
  eventReleases,
  EventStoreToken,
  type IssueEventFilter,
  parseEventId,
  serializeEvent,
  serializeEventListItem,
} from "../../event-store/index.js";
import { IssueRepositoryToken } from "../tokens.js";

export const ISSUE_PATH = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/";

/** The live issue of the organization an `{issue_id}` names (numeric or short id); 404 otherwise. */
export async function requireIssue(
  container: DependencyContainer,
  organizationId: number,
  ref: string,
): Promise<Issue> {
  const issue = await container.resolve(IssueRepositoryToken).find(organizationId, ref);
  if (!issue) throw notFound();
  return issue;
}

export const listIssueEvents = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}events/`,
  operationId: "issues.events",
  summary: "List an issue's events, newest first (`full=1` for detailed events)",
  scopes: ["event:read"],
  query: eventListQuery,
  handler: async ({ organization, params, query, container, url }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const { filter: terms, order } = eventListTerms(query, container.resolve(Clock).now());
    const filter: IssueEventFilter = { ...terms, organizationId: organization.id, issueId: Number(issue.id) };
    const page = await container.resolve(EventStoreToken).issueEventPage(filter, order, query.cursor, query.per_page);
    const releases = query.full ? await eventReleases(container, page.rows) : new Map();
    return pageReply(url, page, query.per_page, (row) => serializeEventListItem(row, query.full, releases));
  },
});

export const getIssueEvent = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}events/{event_id}/`,
  operationId: "issues.event",
  summary: "Retrieve an issue's event: `latest`, `oldest`, `recommended` (the latest) or an event id",
  scopes: ["event:read"],
  query: z.object({ environment: environmentsParam }),
  handler: async ({ organization, params, query, container }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const store = container.resolve(EventStoreToken);
    const filter: IssueEventFilter = {
      organizationId: organization.id,
      issueId: Number(issue.id),
      environments: query.environment,
      tags: [],
      text: [],
    };
    const which = params.event_id.toLowerCase();
    let event;
    if (which === "latest" || which === "recommended") event = await store.latestEvent(filter, "newest");
    else if (which === "oldest") event = await store.latestEvent(filter, "oldest");
    else {
      const eventId = parseEventId(params.event_id);
      event = eventId === null ? undefined : await store.issueEvent(filter, eventId);
    }
    if (!event) throw new ApiError(404, "Event not found");
    return { body: serializeEvent(event, await store.neighbours(event), await eventReleases(container, [event])) };
  },
});
