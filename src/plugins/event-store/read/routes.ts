import type { DependencyContainer } from "tsyringe";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError } from "../../../http/errors.js";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { parseEventId } from "./queries.js";
import { serializeEvent } from "./serialize.js";
import type { StoredEvent } from "../tables.js";
import { EventStoreToken } from "../tokens.js";

const EVENT_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/events/{event_id}/";

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
    return { body: serializeEvent(event, await container.resolve(EventStoreToken).neighbours(event)) };
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
export const eventEndpoints = [getEvent, getEventJson];
