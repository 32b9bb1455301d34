import type { DependencyContainer } from "tsyringe";
import { resolveActor } from "../../../auth/actor.js";
import type { Principal } from "../../../auth/principal.js";
import { Db } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { z } from "zod";
import { authorizeApp, authorizeIn } from "../access/access.js";
import { createAppInput, requestLogQuery, updateAppInput } from "../installations/schemas.js";
import { serializeApp, serializeRequest } from "../installations/serialize.js";
import { InstallationRepositoryToken, InstallationServiceToken } from "../tokens.js";

const APP = "/api/0/svc-apps/{app_slug}/";

/** What the access checks need from an endpoint's context. */
export function accessDeps(ctx: { container: DependencyContainer; principal: Principal | null }) {
  return {
    db: ctx.container.resolve(Db),
    repository: ctx.container.resolve(InstallationRepositoryToken),
    principal: ctx.principal,
  };
}

/** The webhook `actor` of a change made over HTTP: the user, or the app behind an installation token. */
export async function actorOf(ctx: { container: DependencyContainer; principal: Principal | null }) {
  return (await resolveActor(ctx.container.resolve(Db), ctx.principal)).actor;
}

export const createApp = defineEndpoint({
  method: "POST",
  path: "/api/0/svc-apps/",
  operationId: "apps.create",
  summary: "Create an app owned by the organization named in the body; its client secret is in this response only",
  body: createAppInput,
  handler: async (ctx) => {
    const { organization, scopes } = await authorizeIn(
      ctx.container.resolve(Db),
      ctx.principal,
      ctx.body.organization,
      ["org:admin"],
    );
    const app = await ctx.container
      .resolve(InstallationServiceToken)
      .createApp({ ...ctx.body, organization: organization.id }, { actor: await actorOf(ctx), caller: { scopes } });
    return { status: 201, body: app };
  },
});

export const listApps = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/svc-apps/",
  operationId: "apps.list",
  summary: "List the apps an organization owns, newest first (no secrets)",
  scopes: ["org:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(InstallationRepositoryToken);
    const page = await keysetPage((bound) => repository.listApps(organization.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (app) => app.date_created.getTime(),
      idOf: (app) => app.id,
    });
    return pageReply(url, page, query.per_page, serializeApp);
  },
});

export const getApp = defineEndpoint({
  method: "GET",
  path: APP,
  operationId: "apps.get",
  summary: "Retrieve one of the organization's apps (no secret)",
  handler: async (ctx) => ({
    body: serializeApp((await authorizeApp(accessDeps(ctx), ctx.params.app_slug, ["org:read"])).app),
  }),
});

export const updateApp = defineEndpoint({
  method: "PUT",
  path: APP,
  operationId: "apps.update",
  summary:
    "Change an app's name, webhook URL, event categories, scopes or UI schema; added scopes wait for each installing organization's approval",
  body: updateAppInput,
  handler: async (ctx) => {
    const { app, scopes } = await authorizeApp(accessDeps(ctx), ctx.params.app_slug, ["org:admin"]);
    return {
      body: await ctx.container
        .resolve(InstallationServiceToken)
        .updateApp(app, ctx.body, { actor: await actorOf(ctx), caller: { scopes } }),
    };
  },
});

export const deleteApp = defineEndpoint({
  method: "DELETE",
  path: APP,
  operationId: "apps.delete",
  summary: "Delete an app; it is uninstalled everywhere (installation.deleted for each installation)",
  handler: async (ctx) => {
    const { app } = await authorizeApp(accessDeps(ctx), ctx.params.app_slug, ["org:admin"]);
    await ctx.container.resolve(InstallationServiceToken).deleteApp(app, await actorOf(ctx));
    return { status: 204 };
  },
});

export const rotateAppSecret = defineEndpoint({
  method: "POST",
  path: `${APP}rotate-secret/`,
  operationId: "apps.rotateSecret",
  summary: "Replace an app's client secret; the new one is in this response only",
  handler: async (ctx) => {
    const { app } = await authorizeApp(accessDeps(ctx), ctx.params.app_slug, ["org:admin"]);
    return { body: await ctx.container.resolve(InstallationServiceToken).rotateSecret(app) };
  },
});

export const listAppRequests = defineEndpoint({
  method: "GET",
  path: `${APP}requests/`,
  operationId: "apps.requests",
  summary: "An app's webhook request log: the newest 100 requests and the newest 100 errors per event type",
  query: requestLogQuery,
  handler: async (ctx) => {
    const { app } = await authorizeApp(accessDeps(ctx), ctx.params.app_slug, ["org:read"]);
    const rows = await ctx.container.resolve(InstallationRepositoryToken).requestLog(app.id, ctx.query);
    return { body: rows.map(serializeRequest) };
  },
});
