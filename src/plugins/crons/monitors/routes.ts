import { z } from "zod";
import type { DependencyContainer } from "tsyringe";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import type { CronMonitor } from "../tables.js";
import { MonitorRepositoryToken, MonitorServiceToken } from "../tokens.js";
import { createMonitorBody, updateMonitorBody } from "./schemas.js";
import { serializeMonitor } from "./serialize.js";

const MONITORS = "/api/0/organizations/{organization_id_or_slug}/monitors/";
const MONITOR = "/api/0/organizations/{organization_id_or_slug}/monitors/{monitor_id_or_slug}/";

/** Monitors in Sentry's shape, with their environments and projects (one query each for the whole page). */
async function serializeMonitors(container: DependencyContainer, organizationId: number, monitors: CronMonitor[]) {
  const repository = container.resolve(MonitorRepositoryToken);
  const [environments, projects] = await Promise.all([
    repository.environments(monitors.map((monitor) => monitor.id)),
    repository.projects(organizationId, [...new Set(monitors.map((monitor) => monitor.project_id))]),
  ]);
  const projectById = new Map(projects.map((project) => [project.id, project]));
  return monitors.map((monitor) =>
    serializeMonitor(
      monitor,
      environments.filter((environment) => environment.monitor_id === monitor.id),
      projectById.get(monitor.project_id),
    ),
  );
}

const one = async (container: DependencyContainer, organizationId: number, monitor: CronMonitor) =>
  (await serializeMonitors(container, organizationId, [monitor]))[0];

export const listMonitors = defineEndpoint({
  method: "GET",
  path: MONITORS,
  operationId: "crons.monitors.list",
  summary: "List the organization's cron monitors, newest first",
  scopes: ["project:read"],
  query: z.object({
    per_page: pageSizeSchema,
    cursor: cursorSchema,
    /** Project ids, as Sentry's `project` filter (repeatable). */
    project: z.union([z.string().regex(/^-?\d+$/), z.array(z.string().regex(/^-?\d+$/))]).optional(),
  }),
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(MonitorRepositoryToken);
    const requested = query.project === undefined ? [] : [query.project].flat().map(Number);
    const projectIds = requested.length === 0 || requested.includes(-1) ? null : requested;
    const page = await keysetPage((bound) => repository.list(organization.id, bound, projectIds), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (monitor) => monitor.date_created.getTime(),
      idOf: (monitor) => monitor.id,
    });
    const serialized = await serializeMonitors(container, organization.id, page.rows);
    const bySlug = new Map(serialized.map((monitor) => [monitor.slug, monitor]));
    return pageReply(url, page, query.per_page, (monitor) => bySlug.get(monitor.slug));
  },
});

export const createMonitor = defineEndpoint({
  method: "POST",
  path: MONITORS,
  operationId: "crons.monitors.create",
  summary: "Create a cron monitor",
  scopes: ["project:write"],
  body: createMonitorBody,
  handler: async ({ organization, body, container }) => {
    const monitor = await container.resolve(MonitorServiceToken).create(organization.id, body);
    return { status: 201, body: await one(container, organization.id, monitor) };
  },
});

export const getMonitor = defineEndpoint({
  method: "GET",
  path: MONITOR,
  operationId: "crons.monitors.get",
  summary: "A cron monitor with its environments",
  scopes: ["project:read"],
  handler: async ({ organization, params, container }) => {
    const monitor = await container.resolve(MonitorServiceToken).require(organization.id, params.monitor_id_or_slug);
    return { body: await one(container, organization.id, monitor) };
  },
});

export const updateMonitor = defineEndpoint({
  method: "PUT",
  path: MONITOR,
  operationId: "crons.monitors.update",
  summary: "Change a cron monitor (fields left out keep their values)",
  scopes: ["project:write"],
  body: updateMonitorBody,
  handler: async ({ organization, params, body, container }) => {
    const service = container.resolve(MonitorServiceToken);
    const monitor = await service.update(organization.id, params.monitor_id_or_slug, body);
    return { body: await one(container, organization.id, monitor) };
  },
});

export const deleteMonitor = defineEndpoint({
  method: "DELETE",
  path: MONITOR,
  operationId: "crons.monitors.delete",
  summary: "Delete a cron monitor and its check-ins",
  scopes: ["project:write"],
  handler: async ({ organization, params, container }) => {
    await container.resolve(MonitorServiceToken).delete(organization.id, params.monitor_id_or_slug);
    return { status: 204 };
  },
});

export const monitorEndpoints = [listMonitors, createMonitor, getMonitor, updateMonitor, deleteMonitor];
