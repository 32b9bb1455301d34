import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { scimResponse } from "../errors.js";
import { parseListQuery, parseProjection } from "../resources/list-query.js";
import type { JsonObject } from "../resources/input.js";
import { scimCall, type ScimRouteContext } from "../requests/route-support.js";
import { ScimGroupServiceToken } from "../tokens.js";

/** Bodies are checked by the service against the SCIM schemas, so that errors carry a scimType. */
const anyBody = z.unknown();
const groups = (ctx: ScimRouteContext) => ctx.container.resolve(ScimGroupServiceToken);
const locationOf = (resource: JsonObject) => String((resource.meta as { location: string }).location);

export const listScimGroups = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Groups",
  operationId: "scim.groups.list",
  summary: "SCIM: list teams (filter, startIndex, count, attributes, excludedAttributes=members)",
  scopes: ["team:read"],
  handler: async (ctx) =>
    scimResponse(ctx.request, await groups(ctx).list(await scimCall(ctx), parseListQuery(ctx.url))),
});

export const createScimGroup = defineEndpoint({
  method: "POST",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Groups",
  operationId: "scim.groups.create",
  summary: "SCIM: create a team",
  scopes: ["team:write"],
  body: anyBody,
  handler: async (ctx) => {
    const resource = await groups(ctx).create(await scimCall(ctx), ctx.body);
    return scimResponse(ctx.request, resource, 201, { Location: locationOf(resource) });
  },
});

export const getScimGroup = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Groups/{group_id}",
  operationId: "scim.groups.get",
  summary: "SCIM: retrieve a team",
  scopes: ["team:read"],
  handler: async (ctx) =>
    scimResponse(
      ctx.request,
      await groups(ctx).get(await scimCall(ctx), ctx.params.group_id, parseProjection(ctx.url)),
    ),
});

export const replaceScimGroup = defineEndpoint({
  method: "PUT",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Groups/{group_id}",
  operationId: "scim.groups.replace",
  summary: "SCIM: replace a team (name, members)",
  scopes: ["team:write"],
  body: anyBody,
  handler: async (ctx) =>
    scimResponse(ctx.request, await groups(ctx).replace(await scimCall(ctx), ctx.params.group_id, ctx.body)),
});

export const patchScimGroup = defineEndpoint({
  method: "PATCH",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Groups/{group_id}",
  operationId: "scim.groups.patch",
  summary: "SCIM: change a team (PatchOp: rename, members add/remove/replace)",
  scopes: ["team:write"],
  body: anyBody,
  handler: async (ctx) =>
    scimResponse(ctx.request, await groups(ctx).patch(await scimCall(ctx), ctx.params.group_id, ctx.body)),
});

export const deleteScimGroup = defineEndpoint({
  method: "DELETE",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Groups/{group_id}",
  operationId: "scim.groups.delete",
  summary: "SCIM: delete a team (its members stay in the organization)",
  scopes: ["team:admin"],
  handler: async (ctx) => {
    await groups(ctx).remove(await scimCall(ctx), ctx.params.group_id);
    return new Response(null, { status: 204 });
  },
});

export const groupEndpoints = [
  listScimGroups,
  createScimGroup,
  getScimGroup,
  replaceScimGroup,
  patchScimGroup,
  deleteScimGroup,
];
