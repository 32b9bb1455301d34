import type { DependencyContainer } from "tsyringe";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError } from "../../../http/errors.js";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { Clock } from "../../../container/tokens.js";
import { pageReply } from "../../../http/pagination.js";
import { eventListQuery, eventListTerms } from "./event-query.js";
import { parseEventId } from "./queries.js";
import { eventReleases } from "./releases.js";
import { serializeEvent, serializeEventListItem } from "./serialize.js";
import type { StoredEvent } from "../tables.js";
import { EventStoreToken } from "../tokens.js";

const EVENTS_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/events/";
const EVENT_PATH = `${EVENTS_PATH}{event_id}/`;

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
    eventId === null
      ? undefined
      : await container.resolve(EventStoreToken).findProjectEvent(organizationId, project.id, eventId);
  if (!event) throw new ApiError(404, "Event not found");
  return event;
}

export const getEvent = defineEndpoint({
  method: "GET",
  path: EVENT_PATH,
  operationId: "events.get",
  summary: "Retrieve an event of a project, with its entries and its neighbours in the issue",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const event = await requireEvent(container, organization.id, params);
    const neighbours = await container.resolve(EventStoreToken).neighbours(event);
    return { body: serializeEvent(event, neighbours, await eventReleases(container, [event])) };
  },
});

/**
 * Sentry's project event list (what `sentry-cli events list` reads): the project's events of
 * live issues, newest first, with the issue event list's filters and `Link` cursors.
 */
export const listProjectEvents = defineEndpoint({
  method: "GET",
  path: EVENTS_PATH,
  operationId: "events.list",
  summary: "List a project's events, newest first (`full=1` for detailed events)",
  scopes: ["event:read"],
  query: eventListQuery,
  handler: async ({ organization, params, query, container, url }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const { filter, order } = eventListTerms(query, container.resolve(Clock).now());
    const page = await container
      .resolve(EventStoreToken)
      .issueEventPage(
        { ...filter, organizationId: organization.id, projectId: project.id },
        order,
        query.cursor,
        query.per_page,
      );
    const releases = query.full ? await eventReleases(container, page.rows) : new Map();
    return pageReply(url, page, query.per_page, (row) => serializeEventListItem(row, query.full, releases));
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

/** The event store's HTTP endpoints: a project's events (the issue-scoped event reads are the issues plugin's). */
export const eventEndpoints = [listProjectEvents, getEvent, getEventJson];
