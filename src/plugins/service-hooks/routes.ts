import { defineEndpoint } from "../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../http/pagination.js";
import { createHookBody, listHooksQuery, updateHookBody } from "./schemas.js";
import { serializeHook } from "./serialize.js";
import { ServiceHookRepositoryToken, ServiceHookServiceToken } from "./tokens.js";

const HOOKS = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/hooks/";
const HOOK = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/hooks/{hook_id}/";

export const createHook = defineEndpoint({
  method: "POST",
  path: HOOKS,
  operationId: "serviceHooks.create",
  summary: "Create a service hook; its secret is in this response only",
  scopes: ["project:write"],
  body: createHookBody,
  handler: async ({ organization, params, body, container }) => {
    const service = container.resolve(ServiceHookServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    const hook = await service.create(project, body);
    return { status: 201, body: { ...serializeHook(hook), secret: hook.secret } };
  },
});

export const listHooks = defineEndpoint({
  method: "GET",
  path: HOOKS,
  operationId: "serviceHooks.list",
  summary: "List a project's service hooks, newest first",
  scopes: ["project:read"],
  query: listHooksQuery.extend({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, params, query, container, url }) => {
    const project = await container
      .resolve(ServiceHookServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const repository = container.resolve(ServiceHookRepositoryToken);
    const page = await keysetPage((bound) => repository.list(organization.id, project.id, query.status, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (hook) => hook.date_created.getTime(),
      idOf: (hook) => hook.seq,
    });
    return pageReply(url, page, query.per_page, serializeHook);
  },
});

export const getHook = defineEndpoint({
  method: "GET",
  path: HOOK,
  operationId: "serviceHooks.get",
  scopes: ["project:read"],
  handler: async ({ organization, params, container }) => {
    const service = container.resolve(ServiceHookServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    return { body: serializeHook(await service.require(project, params.hook_id)) };
  },
});

export const updateHook = defineEndpoint({
  method: "PUT",
  path: HOOK,
  operationId: "serviceHooks.update",
  scopes: ["project:write"],
  body: updateHookBody,
  handler: async ({ organization, params, body, container }) => {
    const service = container.resolve(ServiceHookServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    return { body: serializeHook(await service.update(project, params.hook_id, body)) };
  },
});

export const deleteHook = defineEndpoint({
  method: "DELETE",
  path: HOOK,
  operationId: "serviceHooks.delete",
  summary: "Delete a service hook; deliveries still pending to it are cancelled",
  scopes: ["project:admin"],
  handler: async ({ organization, params, container }) => {
    const service = container.resolve(ServiceHookServiceToken);
    const project = await service.requireProject(organization.id, params.project_id_or_slug);
    await service.delete(project, params.hook_id);
    return { status: 204 };
  },
});
