import { defineEndpoint } from "../../http/endpoint.js";
import { requestBaseUrl } from "./links.js";
import { createProjectBody, updateProjectBody } from "./schemas.js";
import { serializeProjectDetail } from "./serialize.js";
import { OrganizationServiceToken, ProjectAdminServiceToken, PublicBaseUrl } from "./tokens.js";

const PROJECT_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/";

export const createProject = defineEndpoint({
  method: "POST",
  path: "/api/0/teams/{organization_id_or_slug}/{team_id_or_slug}/projects/",
  operationId: "projects.createForTeam",
  summary: "Create a project (with its first DSN key) for a team; the slug is derived from the name when not given",
  scopes: ["project:write", "team:write"],
  body: createProjectBody,
  handler: async ({ organization, params, body, container, url, basePath, scopes }) => {
    const project = await container
      .resolve(ProjectAdminServiceToken)
      .createProject(organization, params.team_id_or_slug, body);
    const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath);
    return { status: 201, body: serializeProjectDetail(project, organization, [...scopes], baseUrl) };
  },
});

export const updateProject = defineEndpoint({
  method: "PUT",
  path: PROJECT_PATH,
  operationId: "projects.update",
  summary: "Update a project's name, slug or platform",
  scopes: ["project:write"],
  body: updateProjectBody,
  handler: async ({ organization, params, body, container, url, basePath, scopes }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const updated = await container.resolve(ProjectAdminServiceToken).updateProject(organization, project, body);
    const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath);
    return { body: serializeProjectDetail(updated, organization, [...scopes], baseUrl) };
  },
});

export const deleteProject = defineEndpoint({
  method: "DELETE",
  path: PROJECT_PATH,
  operationId: "projects.delete",
  summary: "Delete a project with its issues, events and DSN keys (at once: ingest refuses its keys from then on)",
  scopes: ["project:admin"],
  handler: async ({ organization, params, container, principal }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    await container.resolve(ProjectAdminServiceToken).deleteProject(organization, project, principal);
    return { status: 204 };
  },
});
