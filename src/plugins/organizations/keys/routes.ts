import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { requestBaseUrl } from "../links/links.js";
import { createKeyBody, updateKeyBody } from "../organizations/schemas.js";
import { serializeProjectKey } from "../organizations/serialize.js";
import { OrganizationServiceToken, ProjectAdminServiceToken, PublicBaseUrl } from "../tokens.js";

const KEYS_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/keys/";
const KEY_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/keys/{key_id}/";

/** Sentry names a key by its public key; Faultline's numeric key id works too. */
const keyParams = z.object({
  organization_id_or_slug: z.string(),
  project_id_or_slug: z.string(),
  key_id: z.string().regex(/^(\d{1,9}|[0-9a-f]{32})$/, "must be a key id or a 32-character public key"),
});

export const createProjectKey = defineEndpoint({
  method: "POST",
  path: KEYS_PATH,
  operationId: "projectKeys.create",
  summary: "Create a DSN key, optionally with a rate limit ({window, count})",
  scopes: ["project:write"],
  body: createKeyBody,
  handler: async ({ organization, params, body, container, url, basePath }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const key = await container.resolve(ProjectAdminServiceToken).createKey(organization, project, body);
    return {
      status: 201,
      body: serializeProjectKey(key, requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath)),
    };
  },
});

export const getProjectKey = defineEndpoint({
  method: "GET",
  path: KEY_PATH,
  operationId: "projectKeys.get",
  summary: "Retrieve a DSN key",
  scopes: ["project:read"],
  params: keyParams,
  handler: async ({ organization, params, container, url, basePath }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const key = await container.resolve(ProjectAdminServiceToken).requireKey(organization, project, params.key_id);
    return { body: serializeProjectKey(key, requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath)) };
  },
});

export const updateProjectKey = defineEndpoint({
  method: "PUT",
  path: KEY_PATH,
  operationId: "projectKeys.update",
  summary:
    "Rename, (de)activate or rate-limit a DSN key (`rateLimit: null` removes the limit); ingest applies it at once",
  scopes: ["project:write"],
  params: keyParams,
  body: updateKeyBody,
  handler: async ({ organization, params, body, container, url, basePath, principal }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const key = await container
      .resolve(ProjectAdminServiceToken)
      .updateKey(organization, project, params.key_id, body, principal);
    return { body: serializeProjectKey(key, requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath)) };
  },
});

export const deleteProjectKey = defineEndpoint({
  method: "DELETE",
  path: KEY_PATH,
  operationId: "projectKeys.delete",
  summary: "Revoke a DSN key: ingest refuses it from then on",
  scopes: ["project:admin"],
  params: keyParams,
  handler: async ({ organization, params, container, principal }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    await container.resolve(ProjectAdminServiceToken).deleteKey(organization, project, params.key_id, principal);
    return { status: 204 };
  },
});
