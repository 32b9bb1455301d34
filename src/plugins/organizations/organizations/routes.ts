import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { OrganizationRepositoryToken, OrganizationServiceToken, PublicBaseUrl } from "../tokens.js";
import { requestBaseUrl } from "../links/links.js";
import { projectDetail } from "../projects/routes.js";
import { serializeOrganization, serializeProject, serializeProjectKey } from "./serialize.js";

const listQuery = z.object({ per_page: pageSizeSchema, cursor: cursorSchema });

export const getOrganization = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/",
  operationId: "organizations.get",
  summary: "Retrieve an organization",
  scopes: ["org:read"],
  handler: ({ organization, container, url, basePath }) => ({
    body: serializeOrganization(organization, requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath)),
  }),
});

export const listProjects = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/projects/",
  operationId: "projects.list",
  summary: "List an organization's projects, newest first",
  scopes: ["org:read", "project:read"],
  query: listQuery,
  handler: async ({ organization, query, container, url, scopes }) => {
    const repository = container.resolve(OrganizationRepositoryToken);
    const page = await keysetPage((bound) => repository.listProjects(organization.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (p) => p.date_created.getTime(),
      idOf: (p) => p.id,
    });
    return pageReply(url, page, query.per_page, (project) => serializeProject(project, [...scopes]));
  },
});

export const getProject = defineEndpoint({
  method: "GET",
  path: "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/",
  operationId: "projects.get",
  summary: "Retrieve a project",
  scopes: ["project:read"],
  handler: async ({ organization, params, container, url, basePath, scopes }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    return { body: await projectDetail(container, project, organization, { scopes, url, basePath }) };
  },
});

export const listProjectKeys = defineEndpoint({
  method: "GET",
  path: "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/keys/",
  operationId: "projects.keys",
  summary: "List a project's DSN keys (`status=active|inactive` filters, as in Sentry)",
  scopes: ["project:read"],
  query: z.object({ status: z.enum(["active", "inactive"], { error: 'must be "active" or "inactive"' }).optional() }),
  handler: async ({ organization, params, query, container, url, basePath }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const all = await container.resolve(OrganizationRepositoryToken).listProjectKeys(organization.id, project.id);
    const keys = query.status === undefined ? all : all.filter((key) => key.is_active === (query.status === "active"));
    const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath);
    return { body: keys.map((key) => serializeProjectKey(key, baseUrl)) };
  },
});
