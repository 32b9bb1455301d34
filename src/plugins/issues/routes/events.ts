import { z } from "zod";
import type { DependencyContainer } from "tsyringe";
import { Db } from "../../../container/tokens.js";
import type { StoredEvent } from "../tables.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { cursorSchema, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { issueExternalIssues } from "../events-api/external-issues.js";
import { issueHashPage } from "../events-api/hashes.js";
import { eventNeighbours, findProjectEvent, parseEventId } from "../events-api/queries.js";
import { serializeEvent } from "../events-api/serialize.js";
import { IssueRepositoryToken } from "../tokens.js";

const EVENT_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/events/{event_id}/";
const ISSUE_PATH = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/";

/** An event of the project named in the path; any other event (or a malformed id) is "not found". */
async function requireEvent(
  container: DependencyContainer,
  organizationId: number,
  params: { project_id_or_slug: string; event_id: string },
): Promise<StoredEvent> {
  const project = await container
    .resolve(OrganizationServiceToken)
    .requireProject(organizationId, params.project_id_or_slug);
  const eventId = parseEventId(params.event_id);
  const event =
    eventId === null ? undefined : await findProjectEvent(container.resolve(Db), organizationId, project.id, eventId);
  if (!event) throw new ApiError(404, "Event not found");
  return event;
}

async function requireIssueId(container: DependencyContainer, organizationId: number, ref: string): Promise<number> {
  const issue = await container.resolve(IssueRepositoryToken).find(organizationId, ref);
  if (!issue) throw notFound();
  return Number(issue.id);
}

export const getEvent = defineEndpoint({
  method: "GET",
  path: EVENT_PATH,
  operationId: "events.get",
  summary: "Retrieve an event of a project, with its entries and its neighbours in the issue",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const event = await requireEvent(container, organization.id, params);
    return { body: serializeEvent(event, await eventNeighbours(container.resolve(Db), event)) };
  },
});

export const getEventJson = defineEndpoint({
  method: "GET",
  path: `${EVENT_PATH}json/`,
  operationId: "events.json",
  summary: "The event as the SDK sent it",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => ({
    body: (await requireEvent(container, organization.id, params)).payload,
  }),
});

export const listIssueHashes = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}hashes/`,
  operationId: "issues.hashes",
  summary: "The fingerprint hashes grouped into an issue, newest latest event first",
  scopes: ["event:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const issueId = await requireIssueId(container, organization.id, params.issue_id);
    const { page, serialize } = await issueHashPage(container.resolve(Db), issueId, query.cursor, query.per_page);
    return pageReply(url, page, query.per_page, serialize);
  },
});

export const listIssueExternalIssues = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}external-issues/`,
  operationId: "issues.externalIssues",
  summary: "External issue links of every installation for one issue",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const issueId = await requireIssueId(container, organization.id, params.issue_id);
    return { body: await issueExternalIssues(container.resolve(Db), organization.id, issueId) };
  },
});
