import type { Kysely } from "kysely";
import type { DependencyContainer } from "tsyringe";
import { TokenCache } from "../auth/token-cache.js";
import type { Clock } from "../clock.js";
import { registerFactory, registerValue } from "../container/container.js";
import * as tokens from "../container/tokens.js";
import type { Database } from "../db/schema.js";
import { DestinationRegistry } from "../delivery/destinations.js";
import { DeliveryEngine } from "../delivery/engine.js";
import { Outbox } from "../delivery/outbox.js";
import { DELIVERY_TASK_ID } from "../delivery/tasks.js";
import { DeliveryEngineToken, DestinationRegistryToken, OutboxToken } from "../delivery/tokens.js";
import { type DomainEventHandler, type DomainEventName, EventBus } from "../events/event-bus.js";
import type { Logger } from "../logging/logger.js";
import type { Metrics } from "../observability/metrics.js";
import type { ResolvedOptions } from "../options.js";
import type { Composition } from "../plugin/compose.js";
import type { FaultlinePlugin, PluginEventHandler } from "../plugin/plugin.js";

export interface InstanceServices {
  options: ResolvedOptions;
  logger: Logger;
  clock: Clock;
  metrics: Metrics;
  /** The database once the instance has started. */
  db(): Kysely<Database>;
  /** Wakes a background task now (the worker is built after the container). */
  wake(taskId: string): void;
  notifyChannel: string;
}

/** A host's plugin may not add to the core's migration table: refused, naming the plugin. */
export function refuseCoreLedgerMigrations(hostPlugins: readonly FaultlinePlugin[]): void {
  for (const plugin of hostPlugins) {
    if (plugin.coreLedgerMigrations?.length)
      throw new Error(
        `Plugin "${plugin.id}": coreLedgerMigrations is for Faultline's own plugins; put its migrations in "migrations"`,
      );
  }
}

/**
 * The compose stage: the core's services in the instance's container (options, logger, clock,
 * domain events, metrics, the token cache, the database, the delivery outbox and engine), then
 * each plugin's registrations and domain-event subscriptions, in dependency order.
 */
export function registerServices(
  container: DependencyContainer,
  composition: Composition,
  services: InstanceServices,
): void {
  const { options, logger, clock, metrics, wake } = services;
  const bus = new EventBus();
  registerValue(container, tokens.Options, options);
  registerValue(container, tokens.Logger, logger);
  registerValue(container, tokens.Clock, clock);
  registerValue(container, tokens.EventBus, bus);
  registerValue(container, tokens.Metrics, metrics);
  registerValue(container, tokens.TokenCache, new TokenCache(options.tokenCache));
  registerValue(container, tokens.WakeTask, wake);
  registerFactory(container, tokens.Db, services.db);
  registerValue(container, DestinationRegistryToken, new DestinationRegistry());
  registerFactory(
    container,
    OutboxToken,
    () => new Outbox(clock, services.notifyChannel, () => wake(DELIVERY_TASK_ID)),
  );
  registerFactory(
    container,
    DeliveryEngineToken,
    (c) =>
      new DeliveryEngine(
        () => c.resolve(tokens.Db),
        clock,
        logger,
        bus,
        c.resolve(DestinationRegistryToken),
        options.delivery,
        metrics,
        () => wake(DELIVERY_TASK_ID),
      ),
  );
  for (const plugin of composition.plugins) {
    plugin.register?.(container);
    for (const [name, handler] of Object.entries(plugin.on ?? {})) {
      const subscriber = handler as PluginEventHandler<DomainEventName>;
      bus.subscribe(
        name as DomainEventName,
        ((event, scope) => subscriber(event, scope, { container })) as DomainEventHandler,
      );
    }
  }
}
