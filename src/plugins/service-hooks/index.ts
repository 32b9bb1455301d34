import { registerFactory } from "../../container/container.js";
import { Clock, Db, Options } from "../../container/tokens.js";
import { DestinationRegistryToken, OutboxToken } from "../../delivery/tokens.js";
import { definePlugin, type PluginInitContext } from "../../plugin/plugin.js";
import { OrganizationLinksToken, OrganizationServiceToken } from "../organizations/index.js";
import { ServiceHookDispatcher, serviceHookDestination } from "./dispatcher.js";
import { ServiceHookRepository } from "./repository.js";
import { createHook, deleteHook, getHook, listHooks, updateHook } from "./routes.js";
import { ServiceHookService } from "./service.js";
import { ServiceHookDispatcherToken, ServiceHookRepositoryToken, ServiceHookServiceToken } from "./tokens.js";
import { serviceHooksMigrations } from "./migrations.js";

/** Project service hooks: CRUD, and signed `event.created` / `event.alert` deliveries. */
export const serviceHooksPlugin = definePlugin({
  id: "service-hooks",
  coreLedgerMigrations: serviceHooksMigrations,
  dependencies: ["organizations", "issues"],
  register(container) {
    registerFactory(container, ServiceHookRepositoryToken, (c) => new ServiceHookRepository(() => c.resolve(Db)));
    registerFactory(
      container,
      ServiceHookServiceToken,
      (c) =>
        new ServiceHookService(
          c.resolve(ServiceHookRepositoryToken),
          c.resolve(OrganizationServiceToken),
          c.resolve(Clock),
          c.resolve(Options).delivery.allowPrivateNetworks,
        ),
    );
    registerFactory(
      container,
      ServiceHookDispatcherToken,
      (c) =>
        new ServiceHookDispatcher(
          c.resolve(ServiceHookRepositoryToken),
          c.resolve(OutboxToken),
          c.resolve(OrganizationLinksToken),
        ),
    );
  },
  init: ({ container }) => container.resolve(DestinationRegistryToken).register(serviceHookDestination),
  endpoints: [createHook, listHooks, getHook, updateHook, deleteHook],
  on: {
    "error.created": (event, scope, { container }: PluginInitContext) =>
      container
        .resolve(ServiceHookDispatcherToken)
        .dispatch(scope, "event.created", event.payload.issue, event.payload.event),
  },
});

export { eventAlertPayload } from "./payload.js";
export { ServiceHookDispatcherToken, type ServiceHookSender } from "./tokens.js";
export type { ServiceHooksTable, ServiceHook } from "./tables.js";
