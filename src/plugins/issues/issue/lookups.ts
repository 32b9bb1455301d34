import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { idString } from "../../../http/format.js";
import { eventReleases, EventStoreToken, parseEventId, serializeEvent } from "../../event-store/index.js";
import { parseShortId } from "../short-id.js";
import { serializeIssueDetail } from "./serialize.js";
import { IssueRepositoryToken } from "../tokens.js";
import { serializeContext } from "./context.js";

const ORGANIZATION_PATH = "/api/0/organizations/{organization_id_or_slug}";

export const resolveShortId = defineEndpoint({
  method: "GET",
  path: `${ORGANIZATION_PATH}/shortids/{issue_id}/`,
  operationId: "issues.resolveShortId",
  summary: "Resolve a short id (`WEB-1A`) to its issue",
  scopes: ["event:read"],
  handler: async (ctx) => {
    // Only a short id: a numeric id is not one (Sentry answers 404 too).
    if (!parseShortId(ctx.params.issue_id) || /^\d+$/.test(ctx.params.issue_id)) throw notFound();
    const serialize = serializeContext(ctx, null);
    const found = await ctx.container
      .resolve(IssueRepositoryToken)
      .findDetail(ctx.organization.id, ctx.params.issue_id, serialize.userId, serialize.now, serialize.userReports);
    if (!found) throw notFound();
    const group = await serializeIssueDetail(found, serialize);
    return {
      body: {
        organizationSlug: ctx.organization.slug,
        projectSlug: group.project.slug,
        groupId: group.id,
        shortId: group.shortId,
        group,
      },
    };
  },
});

export const resolveEventId = defineEndpoint({
  method: "GET",
  path: `${ORGANIZATION_PATH}/eventids/{event_id}/`,
  operationId: "events.resolveEventId",
  summary: "Resolve an event id to its project, issue and event",
  scopes: ["event:read"],
  handler: async ({ organization, params, container }) => {
    const eventId = parseEventId(params.event_id);
    const store = container.resolve(EventStoreToken);
    const found = eventId === null ? undefined : await store.findOrganizationEvent(organization.id, eventId);
    if (!found) throw new ApiError(404, "Event not found");
    const { project_slug: projectSlug, ...event } = found;
    return {
      body: {
        organizationSlug: organization.slug,
        projectSlug,
        groupId: idString(event.issue_id),
        eventId: event.event_id,
        event: serializeEvent(event, await store.neighbours(event), await eventReleases(container, [event])),
      },
    };
  },
});
