import { z } from "zod";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError } from "../../../http/errors.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { authorizeInstallation } from "../access/access.js";
import { accessDeps, actorOf } from "../apps/routes.js";
import {
  approveScopesInput as approveScopesBody,
  authorizationBody,
  componentsQuery,
  installAppBody,
} from "./schemas.js";
import { serializeComponents, serializeInstallation } from "./serialize.js";
import { InstallationAuthorizerToken, InstallationRepositoryToken, InstallationServiceToken } from "../tokens.js";

const INSTALLATIONS = "/api/0/organizations/{organization_id_or_slug}/svc-app-installations/";
const INSTALLATION = "/api/0/svc-app-installations/{uuid}/";

export const listInstallations = defineEndpoint({
  method: "GET",
  path: INSTALLATIONS,
  operationId: "installations.list",
  summary: "List the apps installed in an organization, newest first",
  scopes: ["org:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema }),
  handler: async ({ organization, query, container, url }) => {
    const repository = container.resolve(InstallationRepositoryToken);
    const page = await keysetPage((bound) => repository.listInstallations(organization.id, bound), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (row) => row.date_created.getTime(),
      idOf: (row) => row.id,
    });
    return pageReply(url, page, query.per_page, serializeInstallation);
  },
});

export const installApp = defineEndpoint({
  method: "POST",
  path: INSTALLATIONS,
  operationId: "installations.install",
  summary:
    "Install an app by slug: 201 with the new installation (and its grant code), 200 when already installed; app scopes the installer lacks are pending",
  scopes: ["org:integrations"],
  body: installAppBody,
  handler: async (ctx) => {
    const { created, ...installation } = await ctx.container
      .resolve(InstallationServiceToken)
      .install(
        { organization: ctx.organization.id, app: ctx.body.slug },
        { actor: await actorOf(ctx), caller: { scopes: ctx.scopes } },
      );
    return { status: created ? 201 : 200, body: installation };
  },
});

export const getInstallation = defineEndpoint({
  method: "GET",
  path: INSTALLATION,
  operationId: "installations.get",
  summary: "Retrieve an installation: the scopes its tokens carry and the app's scopes waiting for approval",
  handler: async (ctx) => {
    const { installation } = await authorizeInstallation(accessDeps(ctx), ctx.params.uuid, ["org:read"]);
    return {
      body: serializeInstallation(
        await ctx.container.resolve(InstallationRepositoryToken).installationRow(installation.id),
      ),
    };
  },
});

export const approveInstallationScopes = defineEndpoint({
  method: "POST",
  path: `${INSTALLATION}approve-scopes/`,
  operationId: "installations.approveScopes",
  summary:
    "Approve scopes the app asks for beyond the organization's consent; the installation's tokens carry them from now on",
  body: approveScopesBody,
  handler: async (ctx) => {
    const { installation, scopes } = await authorizeInstallation(accessDeps(ctx), ctx.params.uuid, [
      "org:integrations",
    ]);
    // Consent is the organization's to give, never the app's: not even for its own installation.
    if (ctx.principal && ctx.principal.installationId !== null)
      throw new ApiError(403, "An installation token cannot approve scopes");
    const approved = await ctx.container
      .resolve(InstallationServiceToken)
      .approveScopes(installation.uuid, ctx.body, { actor: await actorOf(ctx), caller: { scopes } });
    return { body: approved };
  },
});

export const uninstallApp = defineEndpoint({
  method: "DELETE",
  path: INSTALLATION,
  operationId: "installations.uninstall",
  summary: "Uninstall an app; installation.deleted is still delivered to it",
  handler: async (ctx) => {
    const { installation } = await authorizeInstallation(accessDeps(ctx), ctx.params.uuid, ["org:integrations"]);
    await ctx.container.resolve(InstallationServiceToken).uninstall(installation.uuid, await actorOf(ctx));
    return { status: 204 };
  },
});

export const authorizeInstallationToken = defineEndpoint({
  method: "POST",
  path: "/api/0/svc-app-installations/{uuid}/authorizations/",
  operationId: "installations.authorize",
  summary:
    "OAuth exchange: a grant code or refresh token and the app's client credentials → an installation token (8 h)",
  auth: "none",
  body: authorizationBody,
  handler: async ({ params, body, container }) => ({
    status: 201,
    body: await container.resolve(InstallationAuthorizerToken).exchange(params.uuid, body),
    // Token responses must not be cached anywhere (RFC 6749 §5.1).
    headers: { "Cache-Control": "no-store" },
  }),
});

export const listComponents = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/svc-app-components/",
  operationId: "installations.components",
  summary: "The UI components (schema elements) of the apps installed in an organization",
  scopes: ["org:read"],
  query: componentsQuery,
  handler: async ({ organization, query, container }) => ({
    body: serializeComponents(
      await container.resolve(InstallationRepositoryToken).installedSchemas(organization.id),
      query.filter,
    ),
  }),
});
