import "reflect-metadata";
import { type Kysely, sql } from "kysely";
import type { DependencyContainer, InjectionToken } from "tsyringe";
import { systemClock } from "./clock.js";
import { createInstanceContainer, registeredTokens, registerValue } from "./container/container.js";
import { defaultDatabase } from "./db/connect.js";
import type { MigrationReport, MigrationStatus } from "./db/migrator.js";
import type { Database } from "./db/schema.js";
import { deliveryRetentionTask, deliveryTask } from "./delivery/tasks.js";
import { type CallFunction, createInProcess } from "./http/in-process.js";
import { RouteTable } from "./http/openapi.js";
import { createPipeline, type FaultlineHandler } from "./http/pipeline.js";
import { InstanceLifecycle } from "./lifecycle/lifecycle.js";
import { refuseCoreLedgerMigrations, registerServices } from "./lifecycle/services.js";
import { createDefaultLogger } from "./logging/logger.js";
import { createHealth, type Health } from "./observability/health.js";
import { Metrics } from "./observability/metrics.js";
import { type FaultlineOptions, resolveOptions } from "./options.js";
import type { ApiOf } from "./plugin/api-of.js";
import { type Composition, composePlugins } from "./plugin/compose.js";
import type { FaultlinePlugin } from "./plugin/plugin.js";
import { Worker } from "./worker/worker.js";

export type { ApiOf };

/** One embedded Faultline: the HTTP handler, the in-process API, and its lifecycle. */
export interface Faultline<TApi = object> {
  /** Web-standard handler every adapter calls: `Request` in, `Response` out. */
  handler: FaultlineHandler;
  /** In-process API (admin operations and the same operations as HTTP). Each call awaits `ready()`. */
  api: TApi;
  /** Opens the database, applies migrations (unless `autoMigrate: false`) and initialises plugins. Idempotent. */
  ready(): Promise<void>;
  /** Applies pending migrations; returns what it applied (nothing when up to date). */
  migrate(): Promise<MigrationReport>;
  /** Applied and pending migrations (plugin ones as `plugin:name`), without changing anything. */
  migrationStatus(): Promise<MigrationStatus>;
  /**
   * Stops what this instance started and releases what it opened: background tasks and their
   * timers, the LISTEN connection, queued events not yet written (written first), a pool it
   * created from a connection string, an embedded PGlite it created. What the host passed in (its
   * pg Pool, PGlite or Kysely) and the host's own HTTP server stay open: close the server first.
   * Afterwards nothing of Faultline's keeps the event loop alive. Idempotent.
   */
  close(): Promise<void>;
  /** Background tasks: `start()`, `stop()`, and `runDue()` to run everything pending now. */
  worker: Worker;
  /** Liveness and readiness handlers to mount where the orchestrator probes (`/livez`, `/readyz`). */
  health: Health;
  /**
   * Prometheus metrics: `handler()` answers a scrape (text exposition of `registry`); `registry`
   * is the prom-client Registry they live in (the instance's own, or `metrics.registry` of the
   * options); feature areas and host plugins register their own through it too (`tokens.Metrics`).
   */
  metrics: Metrics;
  /** The instance's own DI container (advanced: host plugins resolve services from it). */
  container: DependencyContainer;
  /** Every service token registered in the container. */
  services(): InjectionToken<unknown>[];
  /**
   * Calls any endpoint by operation id, in-process, through the same pipeline as HTTP (validation,
   * scopes, hooks), as an explicit principal: `call("issues.update", { params, body }, { principal })`.
   * Resolves to `{ status, headers, body }`; an error status rejects with an `ApiError`.
   */
  call: CallFunction;
}

/**
 * Builds an instance from options and the given plugin set. Synchronous: nothing is opened until
 * the first request, API call or `ready()`.
 */
export function buildFaultline<const P extends readonly FaultlinePlugin[]>(
  optionsInput: FaultlineOptions,
  builtins: P,
): Faultline<ApiOf<P>> {
  const options = resolveOptions(optionsInput);
  const logger = options.logger ?? createDefaultLogger();
  const clock = options.clock ?? systemClock;
  const metrics = new Metrics(options.metrics);
  refuseCoreLedgerMigrations(options.plugins);
  const composition = composePlugins([...builtins, ...options.plugins]);
  const container = createInstanceContainer();
  const notifyChannel = `faultline_${options.schema}`;
  const lifecycle: InstanceLifecycle = new InstanceLifecycle({
    options,
    database: options.database ?? defaultDatabase(process.env),
    implicitStore: options.database === undefined && process.env.DATABASE_URL === undefined,
    logger,
    composition,
    container,
    notifyChannel,
    worker: (): Worker => worker,
  });
  registerServices(container, composition, {
    options,
    logger,
    clock,
    metrics,
    db: () => lifecycle.db,
    wake: (taskId) => worker.wake(taskId),
    notifyChannel,
  });

  const ready = (): Promise<Kysely<Database>> => lifecycle.ready();
  const tasks = [
    deliveryTask(options.delivery.pollIntervalMs),
    deliveryRetentionTask,
    ...composition.plugins.flatMap((plugin) => plugin.tasks ?? []),
  ];
  const worker: Worker = new Worker(tasks, { container, clock, logger, metrics, ready });
  const health = createHealth({
    ping: async () => sql`SELECT 1`.execute((await lifecycle.connect()).root),
    pendingMigrations: () => lifecycle.pendingMigrations(),
    initialise: ready,
    closed: () => lifecycle.closed,
    worker,
    checks: composition.plugins.flatMap((plugin) => plugin.readiness ?? []),
    container,
    clock,
    options: options.health,
  });
  const api = buildApi(composition.plugins, container, ready) as ApiOf<P>;
  // Every route as data: for OpenAPI, and as `api.<area>.<operation>` where plugins have no such name.
  const routes = routeTable(composition);
  registerValue(container, RouteTable, routes);
  const inProcess = createInProcess({
    endpoints: () => routes.map((route) => route.endpoint),
    handler: () => handler,
    hostAuthenticate: options.authenticate,
    origin: options.publicUrl ? new URL(options.publicUrl).origin : "http://localhost",
    basePath: options.basePath,
  });
  inProcess.extend(api as Record<string, Record<string, unknown>>);
  const pipelineOptions = { ...options, authenticate: inProcess.authenticate };
  const handler = createPipeline({ composition, container, options: pipelineOptions, logger, clock, metrics, ready });
  return {
    handler,
    api,
    ready: async () => void (await ready()),
    migrate: () => lifecycle.migrate(),
    migrationStatus: () => lifecycle.migrationStatus(),
    close: () => lifecycle.close(),
    worker,
    health,
    metrics,
    container,
    services: () => registeredTokens(container),
    call: inProcess.call,
  };
}

/** Every route of the instance with its owner, and whether a plugin renders its errors in its own protocol. */
function routeTable(composition: Composition) {
  return [...composition.router.entries()].map(({ value, owner }) => ({
    endpoint: value.endpoint,
    plugin: owner,
    protocolErrors: composition.plugins.some((plugin) =>
      plugin.errorRenderer?.matches(value.endpoint.path.replace(/\{[^}]+\}/g, "x")),
    ),
  }));
}

/** Merges plugin API namespaces; every function awaits initialisation first. */
function buildApi(
  plugins: readonly FaultlinePlugin[],
  container: DependencyContainer,
  ready: () => Promise<unknown>,
): object {
  const api: Record<string, Record<string, unknown>> = {};
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const [namespace, operations] of Object.entries(plugin.api?.(container) ?? {})) {
      const owner = owners.get(namespace);
      if (owner)
        throw new Error(`API namespace conflict: "${namespace}" is provided by plugins "${owner}" and "${plugin.id}"`);
      owners.set(namespace, plugin.id);
      api[namespace] = awaitReadyFirst(operations as Record<string, unknown>, ready);
    }
  }
  return api;
}

function awaitReadyFirst(operations: Record<string, unknown>, ready: () => Promise<unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [
      name,
      typeof operation === "function"
        ? async (...args: unknown[]) => {
            await ready();
            return (operation as (...a: unknown[]) => unknown)(...args);
          }
        : operation,
    ]),
  );
}
