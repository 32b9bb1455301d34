import { z } from "zod";
import { defineEndpoint } from "../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../http/pagination.js";
import { accessDeps, authorizeInstallation } from "../installations/index.js";
import { linkBody } from "./schemas.js";
import { serializeLink } from "./serialize.js";
import { ExternalIssueRepositoryToken, ExternalIssueServiceToken } from "./tokens.js";

// The installation's organization is not in these paths: each handler authorizes it (404 for a
// principal that cannot act there, or for another installation's token), then checks the scope.
const LINKS = "/api/0/svc-app-installations/{uuid}/external-issues/";

export const listLinks = defineEndpoint({
  method: "GET",
  path: LINKS,
  operationId: "externalIssues.list",
  summary: "List the external issue links an installation created, newest first",
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async (ctx) => {
    const { installation } = await authorizeInstallation(accessDeps(ctx), ctx.params.uuid, ["event:read"]);
    const repository = ctx.container.resolve(ExternalIssueRepositoryToken);
    const page = await keysetPage((bound) => repository.list(installation.id, bound), {
      cursor: ctx.query.cursor,
      limit: ctx.query.per_page,
      keyOf: (row) => row.date_created.getTime(),
      idOf: (row) => row.id,
    });
    return pageReply(ctx.url, page, ctx.query.per_page, serializeLink);
  },
});

export const createLink = defineEndpoint({
  method: "POST",
  path: LINKS,
  operationId: "externalIssues.create",
  summary:
    "Link an issue to an external tracker item: 201 new, 200 when this installation's link to the issue was updated",
  body: linkBody,
  handler: async (ctx) => {
    const { installation } = await authorizeInstallation(accessDeps(ctx), ctx.params.uuid, ["event:write"]);
    const { link, created } = await ctx.container.resolve(ExternalIssueServiceToken).link(installation, ctx.body);
    return { status: created ? 201 : 200, body: serializeLink(link) };
  },
});

export const deleteLink = defineEndpoint({
  method: "DELETE",
  path: `${LINKS}{link_id}/`,
  operationId: "externalIssues.delete",
  summary: "Delete one of an installation's external issue links",
  handler: async (ctx) => {
    const { installation } = await authorizeInstallation(accessDeps(ctx), ctx.params.uuid, ["event:admin"]);
    await ctx.container.resolve(ExternalIssueServiceToken).unlink(installation, ctx.params.link_id);
    return { status: 204 };
  },
});
