import type { z } from "zod";
import { Clock, Db } from "../../../container/tokens.js";
import type { Principal } from "../../../auth/principal.js";
import type { Organization } from "../../../db/schema.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { linkHeader } from "../../../http/pagination.js";
import type { DependencyContainer } from "tsyringe";
import { OrganizationServiceToken } from "../../organizations/index.js";
import { listIssuesQuery } from "./params.js";
import { IssueListQuery, MAX_HITS } from "./service.js";
import { serializeIssues } from "../issue/serialize.js";
import { IssueWorkflowToken } from "../tokens.js";
import { bulkUpdateBody, mergeReply } from "../merge/routes.js";
import { type BulkQuery, bulkQuery } from "./bulk-query.js";
import { serializeContext, userReportCounts } from "../issue/context.js";
import type { Scope } from "../../../auth/scopes.js";
import { discardIssues } from "../tombstones/discard.js";

const LIST_PATH = "/api/0/organizations/{organization_id_or_slug}/issues/";

interface Caller {
  container: DependencyContainer;
  principal: Principal;
  organization: Organization;
}

function listQueryFor(ctx: Caller): IssueListQuery {
  return new IssueListQuery(
    ctx.container.resolve(Db),
    { organizationId: ctx.organization.id, userId: ctx.principal.userId, now: ctx.container.resolve(Clock).now() },
    userReportCounts(ctx.container),
  );
}

/** The list reply: serialized items, `Link`, `X-Per-Page`, `X-Hits`, `X-Max-Hits` (and `X-Svc-Direct-Hit`). */
async function listReply(ctx: Caller & { url: URL; basePath: string }, query: z.output<typeof listIssuesQuery>) {
  const { page, hits, directHit, presentation } = await listQueryFor(ctx).list(query);
  const headers: Record<string, string> = {
    Link: linkHeader(ctx.url, page),
    "X-Per-Page": String(query.limit),
    "X-Hits": String(hits),
    "X-Max-Hits": String(MAX_HITS),
    ...(directHit ? { "X-Svc-Direct-Hit": "1" } : {}),
  };
  return { body: await serializeIssues(page.rows, serializeContext(ctx, presentation)), headers };
}

/**
 * The issues a bulk request names: its `id`s, else up to 1000 matching its filters. Under a
 * project's path (`projectId`), only that project's: named ids of other projects are left out,
 * and the filters are limited to it (a `project` parameter there would only contradict the path).
 */
async function bulkTargets(ctx: Caller, query: BulkQuery, projectId?: number): Promise<number[]> {
  const { id, ...filters } = query;
  const list = listQueryFor(ctx);
  if (projectId === undefined) return id.length > 0 ? id : list.matchingIds(filters);
  return id.length > 0 ? list.idsInProject(id, projectId) : list.matchingIds({ ...filters, project: [projectId] });
}

/** A bulk PUT: the changed fields, or 204 when nothing matched. Shared by the organization and project paths. */
async function bulkUpdate(
  ctx: Caller & { body: z.output<typeof bulkUpdateBody>; scopes: ReadonlySet<Scope> },
  ids: number[],
) {
  if (ctx.body.merge) return mergeReply(ctx, ids);
  const { organization, principal } = ctx;
  // Sentry's bulk discard: 204 whatever it matched (docs/issues.md, "Discard").
  if (ctx.body.discard === true) {
    await discardIssues(ctx, ids);
    return { status: 204 };
  }
  const changed =
    ids.length > 0
      ? await ctx.container.resolve(IssueWorkflowToken).bulkUpdate({ organization, principal }, ids, ctx.body)
      : null;
  return changed ? { body: changed } : { status: 204 };
}

async function bulkDelete(ctx: Caller, ids: number[]) {
  const { organization, principal } = ctx;
  if (ids.length > 0) await ctx.container.resolve(IssueWorkflowToken).delete({ organization, principal }, ids);
  return { status: 204 };
}

export const listIssues = defineEndpoint({
  method: "GET",
  path: LIST_PATH,
  operationId: "issues.list",
  summary: "List and search an organization's issues",
  scopes: ["event:read"],
  query: listIssuesQuery,
  handler: (ctx) => listReply(ctx, ctx.query),
});

export const bulkUpdateIssues = defineEndpoint({
  method: "PUT",
  path: LIST_PATH,
  operationId: "issues.bulkUpdate",
  summary: "Update many issues (by id, or up to 1000 matching the filters); answers the changed fields",
  scopes: ["event:write"],
  query: bulkQuery,
  body: bulkUpdateBody,
  handler: async (ctx) => bulkUpdate(ctx, await bulkTargets(ctx, ctx.query)),
});

export const bulkDeleteIssues = defineEndpoint({
  method: "DELETE",
  path: LIST_PATH,
  operationId: "issues.bulkDelete",
  summary: "Delete many issues (by id, or up to 1000 matching the filters)",
  scopes: ["event:admin"],
  query: bulkQuery,
  handler: async (ctx) => bulkDelete(ctx, await bulkTargets(ctx, ctx.query)),
});

const PROJECT_LIST_PATH = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/issues/";

/** The project the path names (by id or slug), in the authorized organization; else 404. */
const pathProject = (ctx: Caller & { params: { project_id_or_slug: string } }) =>
  ctx.container.resolve(OrganizationServiceToken).requireProject(ctx.organization.id, ctx.params.project_id_or_slug);

/**
 * Sentry's project-scoped bulk change, what sentry-cli's `issues resolve|mute|unresolve` send:
 * `?id=…` (ids of other projects are left out), else the filters (`?status=…`; none at all is
 * `--all`: every unresolved issue of the project, up to 1000).
 */
export const bulkUpdateProjectIssues = defineEndpoint({
  method: "PUT",
  path: PROJECT_LIST_PATH,
  operationId: "projects.bulkUpdateIssues",
  summary: "Update many issues of one project (by id, or up to 1000 matching the filters); answers the changed fields",
  scopes: ["event:write"],
  query: bulkQuery,
  body: bulkUpdateBody,
  handler: async (ctx) => {
    const reply = await bulkUpdate(ctx, await bulkTargets(ctx, ctx.query, (await pathProject(ctx)).id));
    // Sentry's schema for this path requires `isPublic`: false unless this change made the issues public
    // (docs/issues.md, "Public sharing"); a merge answers Sentry's `{merge}` alone.
    return reply.body && !ctx.body.merge ? { body: { isPublic: false, ...reply.body } } : reply;
  },
});

export const bulkDeleteProjectIssues = defineEndpoint({
  method: "DELETE",
  path: PROJECT_LIST_PATH,
  operationId: "projects.bulkDeleteIssues",
  summary: "Delete many issues of one project (by id, or up to 1000 matching the filters)",
  scopes: ["event:admin"],
  query: bulkQuery,
  handler: async (ctx) => bulkDelete(ctx, await bulkTargets(ctx, ctx.query, (await pathProject(ctx)).id)),
});

/**
 * Deprecated: the organization list limited to one project, pointing at its successor
 * (`Deprecation: true` and a `rel="successor-version"` link).
 */
export const listProjectIssues = defineEndpoint({
  method: "GET",
  path: PROJECT_LIST_PATH,
  operationId: "projects.issues",
  summary: "Deprecated: list one project's issues (use the organization list with ?project=)",
  scopes: ["event:read"],
  query: listIssuesQuery,
  handler: async (ctx) => {
    const project = await pathProject(ctx);
    // The path names the project; a `project` parameter here would only contradict it.
    const reply = await listReply(ctx, { ...ctx.query, project: [project.id] });
    const successor = new URL(`${ctx.basePath}/api/0/organizations/${ctx.organization.slug}/issues/`, ctx.url);
    successor.searchParams.set("project", String(project.id));
    return {
      ...reply,
      headers: {
        ...reply.headers,
        Deprecation: "true",
        Link: `${reply.headers.Link}, <${successor.toString()}>; rel="successor-version"`,
      },
    };
  },
});
