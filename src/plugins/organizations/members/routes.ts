import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { type MemberRow, serializeMember, serializeTeamSummary } from "../organizations/serialize.js";
import { OrganizationRepositoryToken } from "../tokens.js";

export const listTeams = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/teams/",
  operationId: "teams.list",
  summary: "List an organization's teams",
  scopes: ["team:read", "org:read"],
  handler: async ({ organization, principal, container, scopes }) => {
    const repository = container.resolve(OrganizationRepositoryToken);
    const teams = await repository.listTeams(organization.id);
    const mine =
      principal.userId === null ? new Set<number>() : await repository.teamIdsOf(organization.id, principal.userId);
    return {
      body: teams.map((team) =>
        serializeTeamSummary(
          team,
          mine.has(team.id),
          [...scopes].filter((scope) => scope.startsWith("team:")),
        ),
      ),
    };
  },
});

export const listMembers = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/members/",
  operationId: "members.list",
  summary: "List an organization's members, newest first",
  scopes: ["member:read", "org:read"],
  query: z.object({ cursor: cursorSchema, per_page: pageSizeSchema }),
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(OrganizationRepositoryToken);
    const page = await keysetPage((bound) => repository.listMembers(organization.id, bound) as Promise<MemberRow[]>, {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (row) => row.date_created.getTime(),
      idOf: (row) => row.id,
    });
    return pageReply(url, page, query.per_page, serializeMember);
  },
});
