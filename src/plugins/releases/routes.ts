import type { DependencyContainer } from "tsyringe";
import { z } from "zod";
import { Clock } from "../../container/tokens.js";
import { defineEndpoint } from "../../http/endpoint.js";
import { serializeDeploy, serializeRelease } from "./serialize.js";
import { ReleaseDetailContributorToken } from "./contributors.js";
import type { ReleaseRecord } from "./repository.js";
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
const HOUR_MS = 3_600_000;
/** Sentry's `summaryStatsPeriod` values: the window of `healthData`'s totals. */
const SUMMARY_PERIODS = {
  "1h": 1,
  "24h": 24,
  "1d": 24,
  "48h": 48,
  "2d": 48,
  "7d": 168,
  "14d": 336,
  "30d": 720,
  "90d": 2160,
};
const detailQuery = {
  health: z.enum(["0", "1"], { error: 'must be "0" or "1"' }).optional(),
  summaryStatsPeriod: z
    .enum(Object.keys(SUMMARY_PERIODS) as [keyof typeof SUMMARY_PERIODS], {
      error: `must be one of ${Object.keys(SUMMARY_PERIODS).join(", ")}`,
    })
    .default("14d"),
};
const listQuery = z.object({ query: z.string().max(200).optional(), ...detailQuery });
const getQuery = z.object(detailQuery);
type DetailQuery = z.output<typeof getQuery>;

/** The releases in Sentry's shape, with the contributors' fields (`healthData`) when the query asks for them. */
async function serializeReleases(
  container: DependencyContainer,
  organizationId: number,
  releases: ReleaseRecord[],
  query: DetailQuery,
) {
  const contributors =
    query.health === "1" && container.isRegistered(ReleaseDetailContributorToken, true)
      ? container.resolveAll(ReleaseDetailContributorToken)
      : [];
  const details = new Map<string, Record<string, unknown>>();
  const projects = releases.flatMap((release) =>
    release.projects.map((project) => ({ version: release.version, projectId: project.project_id })),
  );
  const request = {
    health: true,
    summaryPeriodMs: SUMMARY_PERIODS[query.summaryStatsPeriod] * HOUR_MS,
    now: container.resolve(Clock).now(),
  };
  for (const contributor of contributors) {
    if (projects.length === 0) break;
    for (const [key, fields] of await contributor.projectDetails(organizationId, projects, request))
      details.set(key, { ...details.get(key), ...fields });
  }
  return releases.map((release) => serializeRelease(release, details));
}

export const listReleases = defineEndpoint({
  method: "GET",
  path: RELEASES,
  operationId: "releases.list",
  summary:
    "List an organization's releases, newest first (`query`: versions starting with it; `health=1`: health data)",
  scopes: READ,
  query: listQuery,
  handler: async ({ organization, query, container }) => ({
    body: await serializeReleases(
      container,
      organization.id,
      await container.resolve(ReleaseRepositoryToken).list(organization.id, { query: query.query }),
      query,
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
  summary: "Retrieve a release (`health=1`: with its projects' health data)",
  scopes: READ,
  query: getQuery,
  handler: async ({ organization, params, query, container }) => {
    const release = await container.resolve(ReleaseRepositoryToken).get(organization.id, params.version);
    const [body] = await serializeReleases(container, organization.id, [release], query);
    return { body };
  },
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
    const releases = await repository.list(organization.id, { projectId, query: query.query });
    return { body: await serializeReleases(container, organization.id, releases, query) };
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
