import type { DependencyContainer } from "tsyringe";
import { Db } from "../../../container/tokens.js";
import type { Organization, Project } from "../../../db/schema.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { requestBaseUrl } from "../links/links.js";
import { createProjectBody, updateProjectBody } from "../organizations/schemas.js";
import { serializeProjectDetail } from "../organizations/serialize.js";
import { OrganizationServiceToken, ProjectAdminServiceToken, ProjectSettingsToken, PublicBaseUrl } from "../tokens.js";

/** Sentry's project detail, with the plugins' project settings (project-settings.ts) merged in. */
export async function projectDetail(
  container: DependencyContainer,
  project: Project,
  organization: Organization,
  request: { scopes: Iterable<string>; url: URL; basePath: string },
) {
  const settings = await container.resolve(ProjectSettingsToken).load(container.resolve(Db), project);
  const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), request.url, request.basePath);
  return serializeProjectDetail(project, organization, [...request.scopes], baseUrl, settings);
}

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
    return { status: 201, body: await projectDetail(container, project, organization, { scopes, url, basePath }) };
  },
});

export const updateProject = defineEndpoint({
  method: "PUT",
  path: PROJECT_PATH,
  operationId: "projects.update",
  summary: "Update a project's name, slug, platform or the settings plugins contribute (data scrubbing…)",
  scopes: ["project:write"],
  body: updateProjectBody,
  handler: async ({ organization, params, body, container, url, basePath, scopes }) => {
    const project = await container
      .resolve(OrganizationServiceToken)
      .requireProject(organization.id, params.project_id_or_slug);
    const settings = container.resolve(ProjectSettingsToken);
    const given = settings.parseBody(body);
    const updated = await container
      .resolve(ProjectAdminServiceToken)
      .updateProject(organization, project, body, (scope, row) => settings.save(scope, row, given));
    return { body: await projectDetail(container, updated, organization, { scopes, url, basePath }) };
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
