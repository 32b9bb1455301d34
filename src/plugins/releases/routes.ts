import { z } from "zod";
import { Clock } from "../../container/tokens.js";
import { defineEndpoint } from "../../http/endpoint.js";
import { serializeDeploy, serializeRelease } from "./serialize.js";
import { ReleaseRepositoryToken } from "./tokens.js";

const RELEASES = "/api/0/organizations/{organization_id_or_slug}/releases/";
const RELEASE = `${RELEASES}{version}/`;
const READ = ["project:read", "project:releases"] as const;
const WRITE = ["project:write", "project:releases"] as const;

/** Sentry's limit, and no `/`-only or dot names (they cannot be addressed in a path). */
const version = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine(
    (value) => !/[\n\r\t/\\]/.test(value) && value !== "." && value !== ".." && value !== "latest",
    'Invalid release version: no slashes, tabs or new lines, not ".", ".." or "latest"',
  );
const optionalText = z.string().max(2048).nullable().optional();
const date = z.coerce.date().nullable().optional();
const commits = z.array(z.record(z.string(), z.unknown())).max(10_000).optional();

const releaseBody = z.object({
  version,
  projects: z.array(z.string().min(1)).max(1000).optional(),
  ref: optionalText,
  url: optionalText,
  dateReleased: date,
  commits,
});
const updateBody = z.object({
  ref: optionalText,
  url: optionalText,
  dateReleased: date,
  commits,
  projects: z.array(z.string().min(1)).max(1000).optional(),
});
const deployBody = z.object({
  environment: z.string().trim().min(1).max(64),
  name: optionalText,
  url: optionalText,
  dateStarted: date,
  dateFinished: date,
});
const listQuery = z.object({ query: z.string().max(200).optional() });

export const listReleases = defineEndpoint({
  method: "GET",
  path: RELEASES,
  operationId: "releases.list",
  summary: "List an organization's releases, newest first (`query`: versions starting with it)",
  scopes: READ,
  query: listQuery,
  handler: async ({ organization, query, container }) => ({
    body: (await container.resolve(ReleaseRepositoryToken).list(organization.id, { query: query.query })).map(
      serializeRelease,
    ),
  }),
});

export const createRelease = defineEndpoint({
  method: "POST",
  path: RELEASES,
  operationId: "releases.create",
  summary: "Create a release (201), or add projects to an existing one (208)",
  scopes: WRITE,
  body: releaseBody,
  handler: async ({ organization, body, container }) => {
    const { created, release } = await container
      .resolve(ReleaseRepositoryToken)
      .upsert(organization.id, body, container.resolve(Clock).now());
    return { status: created ? 201 : 208, body: serializeRelease(release) };
  },
});

export const getRelease = defineEndpoint({
  method: "GET",
  path: RELEASE,
  operationId: "releases.get",
  summary: "Retrieve a release",
  scopes: READ,
  handler: async ({ organization, params, container }) => ({
    body: serializeRelease(await container.resolve(ReleaseRepositoryToken).get(organization.id, params.version)),
  }),
});

export const updateRelease = defineEndpoint({
  method: "PUT",
  path: RELEASE,
  operationId: "releases.update",
  summary: "Update a release's ref, url, release date or commits",
  scopes: WRITE,
  body: updateBody,
  handler: async ({ organization, params, body, container }) => {
    return {
      body: serializeRelease(
        await container
          .resolve(ReleaseRepositoryToken)
          .update(organization.id, params.version, body, container.resolve(Clock).now()),
      ),
    };
  },
});

export const deleteRelease = defineEndpoint({
  method: "DELETE",
  path: RELEASE,
  operationId: "releases.delete",
  summary: "Delete a release and its deploys (events and issues keep the version name)",
  scopes: WRITE,
  handler: async ({ organization, params, container }) => {
    await container.resolve(ReleaseRepositoryToken).delete(organization.id, params.version);
    return { status: 204 };
  },
});

export const listProjectReleases = defineEndpoint({
  method: "GET",
  path: "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/releases/",
  operationId: "releases.listForProject",
  summary: "List a project's releases, newest first",
  scopes: READ,
  query: listQuery,
  handler: async ({ organization, params, query, container }) => {
    const repository = container.resolve(ReleaseRepositoryToken);
    const projectId = await repository.projectId(organization.id, params.project_id_or_slug);
    return { body: (await repository.list(organization.id, { projectId, query: query.query })).map(serializeRelease) };
  },
});

export const listDeploys = defineEndpoint({
  method: "GET",
  path: `${RELEASE}deploys/`,
  operationId: "releases.deploys.list",
  summary: "List a release's deploys, newest first",
  scopes: READ,
  handler: async ({ organization, params, container }) => ({
    body: (await container.resolve(ReleaseRepositoryToken).listDeploys(organization.id, params.version)).map(
      serializeDeploy,
    ),
  }),
});

export const createDeploy = defineEndpoint({
  method: "POST",
  path: `${RELEASE}deploys/`,
  operationId: "releases.deploys.create",
  summary: "Record a deploy of a release to an environment",
  scopes: WRITE,
  body: deployBody,
  handler: async ({ organization, params, body, container }) => ({
    status: 201,
    body: serializeDeploy(
      await container
        .resolve(ReleaseRepositoryToken)
        .addDeploy(organization.id, params.version, body, container.resolve(Clock).now()),
    ),
  }),
});

export const releaseEndpoints = [
  listReleases,
  createRelease,
  getRelease,
  updateRelease,
  deleteRelease,
  listProjectReleases,
  listDeploys,
  createDeploy,
];
