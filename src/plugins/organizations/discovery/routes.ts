import { z } from "zod";
import type { Principal } from "../../../auth/principal.js";
import { intersectScopes, ROLE_SCOPES, type Scope } from "../../../auth/scopes.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { notFound } from "../../../http/errors.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import type { Organization } from "../../../db/schema.js";
import type { OrganizationRepository } from "../organizations/repository.js";
import { requestBaseUrl } from "../links/links.js";
import { serializeOrganization, serializeProject, serializeUserDetail } from "../organizations/serialize.js";
import { OrganizationRepositoryToken, PublicBaseUrl } from "../tokens.js";

/**
 * The routes that name no organization: the auth probe and the caller's organizations and
 * projects. What they list is derived from the principal alone — its one organization, or its
 * user's active memberships — so nothing of an organization the caller cannot open shows.
 */

/** The organizations this principal may open, each with the scopes it has there. */
async function accessibleOrganizations(
  repository: OrganizationRepository,
  principal: Principal,
): Promise<Array<{ organization: Organization; scopes: ReadonlySet<Scope> }>> {
  if (principal.organizationId !== null) {
    const organization = await repository.findOrganizationById(principal.organizationId);
    return organization ? [{ organization, scopes: principal.scopes }] : [];
  }
  if (principal.userId === null) return [];
  const memberships = await repository.listMemberships(principal.userId);
  return memberships.map(({ role, ...organization }) => ({
    organization,
    scopes: intersectScopes(principal.scopes, ROLE_SCOPES[role]),
  }));
}

export const authProbe = defineEndpoint({
  method: "GET",
  path: "/api/0/",
  operationId: "auth.index",
  summary: "Sentry's API root: the version, and the caller's token scopes and user (null when anonymous)",
  auth: "optional",
  handler: async ({ principal, container }) => {
    const user =
      principal?.userId != null
        ? await container.resolve(OrganizationRepositoryToken).findUser(principal.userId)
        : undefined;
    return {
      body: {
        version: "0",
        auth: principal ? { scopes: [...principal.scopes].sort() } : null,
        user: user ? serializeUserDetail(user) : null,
      },
    };
  },
});

export const currentUser = defineEndpoint({
  method: "GET",
  path: "/api/0/auth/",
  operationId: "auth.user",
  summary: "The user the calling token acts as",
  auth: "user",
  handler: async ({ principal, container }) => {
    const user = await container.resolve(OrganizationRepositoryToken).findUser(principal?.userId as number);
    // Tokens go with their user (ON DELETE CASCADE); a host's `authenticate` hook may name any id.
    if (!user) throw notFound();
    return { body: serializeUserDetail(user) };
  },
});

const organizationListQuery = z.object({
  /** Sentry's filters; every listed organization is one the caller is a member of already. */
  member: z.enum(["0", "1", "true", "false"]).optional(),
  owner: z.enum(["0", "1", "true", "false"]).optional(),
  query: z.string().max(200).optional(),
  cursor: cursorSchema,
  per_page: pageSizeSchema,
});

export const listOrganizations = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/",
  operationId: "organizations.list",
  summary: "List the organizations the caller can open",
  scopes: ["org:read"],
  query: organizationListQuery,
  handler: async ({ principal, query, container, url, basePath }) => {
    const repository = container.resolve(OrganizationRepositoryToken);
    const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath);
    let listed = (await accessibleOrganizations(repository, principal as Principal)).filter(({ scopes }) =>
      scopes.has("org:read"),
    );
    if (query.owner === "1" || query.owner === "true") listed = listed.filter(({ scopes }) => scopes.has("org:admin"));
    const needle = query.query?.trim().toLowerCase();
    if (needle)
      listed = listed.filter(
        ({ organization }) => organization.slug.includes(needle) || organization.name.toLowerCase().includes(needle),
      );
    // A caller belongs to few organizations: one page, newest first, with Sentry's Link header.
    const page = await keysetPage(
      async (bound) => {
        const sorted = listed
          .map(({ organization }) => organization)
          .sort((x, y) => (bound.order === "desc" ? y.id - x.id : x.id - y.id));
        const after = bound.after;
        return sorted
          .filter((o) => !after || (bound.order === "desc" ? o.id < after.id : o.id > after.id))
          .slice(0, bound.limit);
      },
      { cursor: query.cursor, limit: query.per_page, keyOf: (o) => o.id, idOf: (o) => o.id },
    );
    return pageReply(url, page, query.per_page, (organization) => serializeOrganization(organization, baseUrl));
  },
});

export const listAllProjects = defineEndpoint({
  method: "GET",
  path: "/api/0/projects/",
  operationId: "projects.listAll",
  summary: "List the projects of every organization the caller can open, newest first",
  scopes: ["project:read"],
  query: z.object({ cursor: cursorSchema, per_page: pageSizeSchema }),
  handler: async ({ principal, query, container, url, basePath }) => {
    const repository = container.resolve(OrganizationRepositoryToken);
    const baseUrl = requestBaseUrl(container.resolve(PublicBaseUrl), url, basePath);
    const accessible = (await accessibleOrganizations(repository, principal as Principal)).filter(({ scopes }) =>
      scopes.has("project:read"),
    );
    const byId = new Map(accessible.map((entry) => [entry.organization.id, entry]));
    const page = await keysetPage((bound) => repository.listProjectsIn([...byId.keys()], bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (p) => p.date_created.getTime(),
      idOf: (p) => p.id,
    });
    return pageReply(url, page, query.per_page, ({ organization_slug: _slug, ...project }) => {
      const entry = byId.get(project.organization_id);
      return {
        ...serializeProject(project, [...(entry?.scopes ?? [])]),
        organization: entry ? serializeOrganization(entry.organization, baseUrl) : null,
      };
    });
  },
});
