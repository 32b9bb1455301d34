// The `installation.*` domain events (DomainEventMap): loaded with the public entry, so the
// published declarations type a host plugin's `on` handlers for them.
import "./domain-events.js";
import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, Options, TokenCache } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { TokenServiceToken } from "../api-tokens/index.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { createApp, deleteApp, getApp, listAppRequests, listApps, rotateAppSecret, updateApp } from "./apps/routes.js";
import { InstallationAuthorizer } from "./access/oauth.js";
import { InstallationRepository } from "./installations/repository.js";
import {
  approveInstallationScopes,
  authorizeInstallationToken,
  getInstallation,
  installApp,
  listComponents,
  listInstallations,
  uninstallApp,
} from "./installations/routes.js";
import type { ApproveScopesInput, CreateAppInput, InstallAppInput, UpdateAppInput } from "./installations/schemas.js";
import { InstallationService } from "./installations/service.js";
import { InstallationAuthorizerToken, InstallationRepositoryToken, InstallationServiceToken } from "./tokens.js";
import { installationsMigrations } from "./migrations.js";
import { appRequestLogPruneTask } from "./request-log/request-log.js";

/** Apps and installations: app management, installing, the OAuth exchange, UI components and the request log. */
export const installationsPlugin = definePlugin({
  id: "installations",
  coreLedgerMigrations: installationsMigrations,
  dependencies: ["organizations", "api-tokens"],
  // Sentry's own path words, so its tools work unmodified beside the seed's `svc` ones.
  pathAliases: {
    "sentry-apps": "svc-apps",
    "sentry-app-installations": "svc-app-installations",
    "sentry-app-components": "svc-app-components",
  },
  register(container) {
    registerFactory(container, InstallationRepositoryToken, (c) => new InstallationRepository(() => c.resolve(Db)));
    registerFactory(
      container,
      InstallationServiceToken,
      (c) =>
        new InstallationService(
          () => c.resolve(Db),
          c.resolve(InstallationRepositoryToken),
          c.resolve(OrganizationServiceToken),
          c.resolve(EventBus),
          c.resolve(Clock),
          c.resolve(Options).delivery.allowPrivateNetworks,
          c.resolve(TokenCache),
        ),
    );
    registerFactory(
      container,
      InstallationAuthorizerToken,
      (c) =>
        new InstallationAuthorizer(
          () => c.resolve(Db),
          c.resolve(InstallationRepositoryToken),
          c.resolve(TokenServiceToken),
          c.resolve(Clock),
          c.resolve(TokenCache),
        ),
    );
  },
  tasks: [appRequestLogPruneTask],
  endpoints: [
    listInstallations,
    installApp,
    getInstallation,
    approveInstallationScopes,
    uninstallApp,
    authorizeInstallationToken,
    listComponents,
    createApp,
    listApps,
    getApp,
    updateApp,
    deleteApp,
    rotateAppSecret,
    listAppRequests,
  ],
  api: (container) => {
    const service = () => container.resolve(InstallationServiceToken);
    return {
      apps: {
        /** Creates an app; `clientSecret` is in this result only. Internal apps are installed in their owner. */
        create: (input: CreateAppInput) => service().createApp(input),
        /**
         * Changes an app. Scopes it drops leave every installation at once; scopes it adds are
         * pending in each installing organization but its owner (`installation.scopes_requested`).
         */
        update: async (slug: string, input: UpdateAppInput) =>
          service().updateApp(await service().requireApp(slug), input),
        /** Deletes an app, uninstalling it everywhere (`installation.deleted` for each installation). */
        delete: async (slug: string) => service().deleteApp(await service().requireApp(slug)),
        /** A new client secret, in this result only. */
        rotateSecret: async (slug: string) => service().rotateSecret(await service().requireApp(slug)),
      },
      installations: {
        /** Installs an app, consenting to all its scopes (the host is trusted). */
        install: (input: InstallAppInput) => service().install(input),
        uninstall: (uuid: string) => service().uninstall(uuid),
        /**
         * Approves pending scopes of an installation, as the host (no holder check): its tokens,
         * existing and future, carry them at once (`installation.scopes_approved`).
         */
        approveScopes: (uuid: string, input: ApproveScopesInput) => service().approveScopes(uuid, input),
      },
    };
  },
});

export { authorizeIn, authorizeInstallation } from "./access/access.js";
export { accessDeps } from "./apps/routes.js";
export { InstallationRepositoryToken, InstallationServiceToken } from "./tokens.js";
export { type AppRequest, recordAppRequests } from "./request-log/request-log.js";
export type { AppRequestLogTable } from "./tables.js";
