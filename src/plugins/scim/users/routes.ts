import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { scimResponse } from "../errors.js";
import { parseListQuery, parseProjection } from "../resources/list-query.js";
import type { JsonObject } from "../resources/input.js";
import { scimCall, type ScimRouteContext } from "../requests/route-support.js";
import { ScimUserServiceToken } from "../tokens.js";

/** Bodies are checked by the service against the SCIM schemas, so that errors carry a scimType. */
const anyBody = z.unknown();
const users = (ctx: ScimRouteContext) => ctx.container.resolve(ScimUserServiceToken);
const locationOf = (resource: JsonObject) => String((resource.meta as { location: string }).location);

export const listScimUsers = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Users",
  operationId: "scim.users.list",
  summary: "SCIM: list members (filter, startIndex, count, attributes, excludedAttributes)",
  scopes: ["member:read"],
  handler: async (ctx) =>
    scimResponse(ctx.request, await users(ctx).list(await scimCall(ctx), parseListQuery(ctx.url))),
});

export const createScimUser = defineEndpoint({
  method: "POST",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Users",
  operationId: "scim.users.create",
  summary: "SCIM: provision a member",
  scopes: ["member:write"],
  body: anyBody,
  handler: async (ctx) => {
    const resource = await users(ctx).create(await scimCall(ctx), ctx.body);
    return scimResponse(ctx.request, resource, 201, { Location: locationOf(resource) });
  },
});

export const getScimUser = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Users/{user_id}",
  operationId: "scim.users.get",
  summary: "SCIM: retrieve a member",
  scopes: ["member:read"],
  handler: async (ctx) =>
    scimResponse(ctx.request, await users(ctx).get(await scimCall(ctx), ctx.params.user_id, parseProjection(ctx.url))),
});

export const replaceScimUser = defineEndpoint({
  method: "PUT",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Users/{user_id}",
  operationId: "scim.users.replace",
  summary: "SCIM: replace a member's attributes",
  scopes: ["member:write"],
  body: anyBody,
  handler: async (ctx) =>
    scimResponse(ctx.request, await users(ctx).replace(await scimCall(ctx), ctx.params.user_id, ctx.body)),
});

export const patchScimUser = defineEndpoint({
  method: "PATCH",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Users/{user_id}",
  operationId: "scim.users.patch",
  summary: "SCIM: change a member (PatchOp; deactivate with active: false)",
  scopes: ["member:write"],
  body: anyBody,
  handler: async (ctx) =>
    scimResponse(ctx.request, await users(ctx).patch(await scimCall(ctx), ctx.params.user_id, ctx.body)),
});

export const deleteScimUser = defineEndpoint({
  method: "DELETE",
  path: "/api/0/organizations/{organization_id_or_slug}/scim/v2/Users/{user_id}",
  operationId: "scim.users.delete",
  summary: "SCIM: remove a member from the organization (the user account stays)",
  scopes: ["member:admin"],
  handler: async (ctx) => {
    await users(ctx).remove(await scimCall(ctx), ctx.params.user_id);
    return new Response(null, { status: 204 });
  },
});

export const userEndpoints = [
  listScimUsers,
  createScimUser,
  getScimUser,
  replaceScimUser,
  patchScimUser,
  deleteScimUser,
];
