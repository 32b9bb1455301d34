import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import type { DependencyContainer } from "tsyringe";
import { Db } from "../../../container/tokens.js";
import type { Organization } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import {
  OrganizationRepositoryToken,
  OrganizationServiceToken,
  OrganizationSettingsToken,
  PublicBaseUrl,
} from "../tokens.js";
import { updateOrganizationBody } from "./schemas.js";
import { requestBaseUrl } from "../links/links.js";
import { projectDetail } from "../projects/routes.js";
import { serializeOrganization, serializeProject, serializeProjectKey } from "./serialize.js";

const listQuery = z.object({ per_page: pageSizeSchema, cursor: cursorSchema });

/** Sentry's organization detail, with the plugins' organization settings merged in. */
async function organizationDetail(
  container: DependencyContainer,
  organization: Organization,
  request: { url: URL; basePath: string },
) {
  const settings = await container.resolve(OrganizationSettingsToken).load(container.resolve(Db), organization);
  const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), request.url, request.basePath);
  return { ...serializeOrganization(organization, baseUrl), ...settings };
}

export const getOrganization = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/",
  operationId: "organizations.get",
  summary: "Retrieve an organization",
  scopes: ["org:read"],
  handler: async ({ organization, container, url, basePath }) => ({
    body: await organizationDetail(container, organization, { url, basePath }),
  }),
});

export const updateOrganization = defineEndpoint({
  method: "PUT",
  path: "/api/0/organizations/{organization_id_or_slug}/",
  operationId: "organizations.updateDetail",
  summary:
    "Update an organization's name or the settings plugins contribute (an organization-wide data-scrubbing default…)",
  scopes: ["org:write"],
  body: updateOrganizationBody,
  handler: async ({ organization, body, container, url, basePath }) => {
    const settings = container.resolve(OrganizationSettingsToken);
    const given = settings.parseBody(body);
    const updated = await runInTransaction(container.resolve(Db), async (scope) => {
      const row =
        body.name === undefined
          ? organization
          : await scope.trx
              .updateTable("organizations")
              .set({ name: body.name })
              .where("id", "=", organization.id)
              .returningAll()
              .executeTakeFirstOrThrow();
      await settings.save(scope, row, given);
      return row;
    });
    return { body: await organizationDetail(container, updated, { url, basePath }) };
  },
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
