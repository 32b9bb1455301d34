import "reflect-metadata";
import { type Kysely, sql } from "kysely";
import pRetry from "p-retry";
import type { DependencyContainer, InjectionToken } from "tsyringe";
import { TokenCache } from "./auth/token-cache.js";
import { systemClock } from "./clock.js";
import { createInstanceContainer, registeredTokens, registerFactory, registerValue } from "./container/container.js";
import * as tokens from "./container/tokens.js";
import { type DatabaseConnection, defaultDatabase, openDatabase } from "./db/connect.js";
import { DatabaseUnavailableError, describeError, isConnectionFailure, MigrationsPendingError } from "./db/errors.js";
import { type MigrationReport, type MigrationStatus, migrationStatus, type RunMigrationsOptions, runMigrations } from "./db/migrator.js";
import type { Database } from "./db/schema.js";
import { EventBus, type DomainEventHandler, type DomainEventName } from "./events/event-bus.js";
import { ApiError } from "./http/errors.js";
import { createPipeline, type FaultlineHandler } from "./http/pipeline.js";
import { type CallFunction, createInProcess } from "./http/in-process.js";
import { RouteTable } from "./http/openapi.js";
import { createDefaultLogger } from "./logging/logger.js";
import { createHealth, type Health } from "./observability/health.js";
import { Metrics } from "./observability/metrics.js";
import { Worker } from "./worker/worker.js";
import { DestinationRegistry } from "./delivery/destinations.js";
import { DeliveryEngine } from "./delivery/engine.js";
import { Outbox } from "./delivery/outbox.js";
import { DELIVERY_TASK_ID, deliveryRetentionTask, deliveryTask } from "./delivery/tasks.js";
import { DeliveryEngineToken, DestinationRegistryToken, OutboxToken } from "./delivery/tokens.js";
import { type FaultlineOptions, resolveOptions } from "./options.js";
import { composePlugins, migrationTableName } from "./plugin/compose.js";
import type { ApiOf } from "./plugin/api-of.js";
import type { FaultlinePlugin, PluginEventHandler } from "./plugin/plugin.js";

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
  const database = options.database ?? defaultDatabase(process.env);
  const implicitStore = options.database === undefined && process.env.DATABASE_URL === undefined;
  const logger = options.logger ?? createDefaultLogger();
  const clock = options.clock ?? systemClock;
  for (const plugin of options.plugins) {
    if (plugin.coreLedgerMigrations?.length) throw new Error(`Plugin "${plugin.id}": coreLedgerMigrations is for Faultline's own plugins; put its migrations in "migrations"`);
  }
  const composition = composePlugins([...builtins, ...options.plugins]);
  const container = createInstanceContainer();
  const bus = new EventBus();
  const metrics = new Metrics(options.metrics);

  let connection: Promise<DatabaseConnection> | undefined;
  let initialised: Promise<Kysely<Database>> | undefined;
  let db: Kysely<Database> | undefined;
  let closed = false;
  /** Aborted by close(): ends a startup wait for the database. */
  const closing = new AbortController();
  let unlisten: (() => Promise<void>) | undefined;

  registerValue(container, tokens.Options, options);
  registerValue(container, tokens.Logger, logger);
  registerValue(container, tokens.Clock, clock);
  registerValue(container, tokens.EventBus, bus);
  registerValue(container, tokens.Metrics, metrics);
  registerValue(container, tokens.TokenCache, new TokenCache(options.tokenCache));
  registerValue(container, tokens.WakeTask, (taskId: string) => worker.wake(taskId));
  registerFactory(container, tokens.Db, () => {
    if (!db) throw new Error("Faultline is not ready: await faultline.ready() first");
    return db;
  });
  const notifyChannel = `faultline_${options.schema}`;
  registerValue(container, DestinationRegistryToken, new DestinationRegistry());
  registerFactory(container, OutboxToken, () => new Outbox(clock, notifyChannel, () => worker.wake(DELIVERY_TASK_ID)));
  registerFactory(
    container,
    DeliveryEngineToken,
    (c) => new DeliveryEngine(() => c.resolve(tokens.Db), clock, logger, bus, c.resolve(DestinationRegistryToken), options.delivery, metrics, () => worker.wake(DELIVERY_TASK_ID)),
  );
  for (const plugin of composition.plugins) {
    plugin.register?.(container);
    for (const [name, handler] of Object.entries(plugin.on ?? {})) {
      const subscriber = handler as PluginEventHandler<DomainEventName>;
      bus.subscribe(name as DomainEventName, ((event, scope) => subscriber(event, scope, { container })) as DomainEventHandler);
    }
  }

  const connect = () =>
    (connection ??= openDatabase(database, options.schema, { logger, connectTimeoutMs: options.connection.timeoutMs }).catch((error: unknown) => {
      connection = undefined; // a later call may retry (the database may come up)
      throw error;
    }));

  /** `faultline.migrate()` (and the CLI): a database that is down gives the same one clear error as startup. */
  async function migrate(): Promise<MigrationReport> {
    const opened = await connect();
    await reachDatabase(opened);
    return applyMigrations(opened.root);
  }

  /** The core's migration set, then each plugin's (its names prefixed `plugin:`). */
  const migrationSets: { prefix: string; run: RunMigrationsOptions }[] = [
    {
      prefix: "",
      run: {
        schema: options.schema,
        migrations: composition.coreLedgerMigrations,
        tableName: "faultline_migration",
      },
    },
    ...composition.plugins
      .filter((plugin) => plugin.migrations?.length)
      .map((plugin) => ({ prefix: `${plugin.id}:`, run: { schema: options.schema, migrations: plugin.migrations ?? [], tableName: migrationTableName(plugin) } })),
  ];

  async function applyMigrations(root: Kysely<unknown>): Promise<MigrationReport> {
    const applied: string[] = [];
    for (const { prefix, run } of migrationSets) applied.push(...(await runMigrations(root, run)).applied.map((name) => prefix + name));
    if (applied.length > 0) logger.info({ applied }, "faultline: migrations applied");
    return { applied };
  }

  async function readMigrationStatus(root: Kysely<unknown>): Promise<MigrationStatus> {
    const status: MigrationStatus = { applied: [], pending: [] };
    for (const { prefix, run } of migrationSets) {
      const own = await migrationStatus(root, run);
      status.applied.push(...own.applied.map((name) => prefix + name));
      status.pending.push(...own.pending.map((name) => prefix + name));
    }
    return status;
  }

  async function listPendingMigrations(): Promise<string[]> {
    const { root } = await connect();
    return (await readMigrationStatus(root)).pending;
  }

  /**
   * One query before anything else, so that a database that is down gives one clear error (or,
   * with `connection.startupWaitMs`, is waited for with backoff) rather than a failure deep in
   * migrations.
   */
  async function reachDatabase(opened: DatabaseConnection): Promise<void> {
    const waitMs = options.connection.startupWaitMs;
    try {
      await pRetry(() => sql`SELECT 1`.execute(opened.root), {
        retries: waitMs > 0 ? Number.POSITIVE_INFINITY : 0,
        maxRetryTime: waitMs,
        minTimeout: 200,
        maxTimeout: 5_000,
        randomize: true,
        signal: closing.signal,
        shouldRetry: ({ error }) => isConnectionFailure(error),
        onFailedAttempt: ({ error, attemptNumber }) => {
          if (waitMs > 0 && isConnectionFailure(error)) logger.warn({ err: error, attemptNumber }, `faultline: waiting for ${opened.label}`);
        },
      });
    } catch (error) {
      if (closing.signal.aborted) throw new ApiError(503, "This Faultline instance is closed");
      if (!isConnectionFailure(error)) throw error;
      const waited = waitMs > 0 ? ` (waited ${waitMs} ms)` : "";
      throw new DatabaseUnavailableError(`Faultline could not connect to ${opened.label}${waited}: ${describeError(error)}`, { cause: error });
    }
  }

  async function init(): Promise<Kysely<Database>> {
    const opened = await connect();
    await reachDatabase(opened);
    if (options.autoMigrate) await applyMigrations(opened.root);
    else {
      // Fail here, naming what is missing, rather than on every query that needs it.
      const { pending } = await readMigrationStatus(opened.root);
      if (pending.length > 0) throw new MigrationsPendingError(options.schema, pending);
    }
    const storage = `faultline: storage ${opened.label}, schema ${options.schema}`;
    // A store nobody chose (no `database`, no DATABASE_URL) is said at warn, which the default
    // logger prints: a newcomer sees where the data went, and a deploy that forgot DATABASE_URL
    // sees that it writes to a local directory instead of its PostgreSQL.
    if (implicitStore) logger.warn({ storage: opened.label, schema: options.schema }, `${storage} (the default: no \`database\` option and no DATABASE_URL; one process at a time, use PostgreSQL to share or in production)`);
    else logger.info({ storage: opened.label, schema: options.schema }, storage);
    db = opened.db;
    for (const plugin of composition.plugins) await plugin.init?.({ container });
    if (options.worker) {
      // Other processes' commits wake this worker through NOTIFY; polling is the fallback.
      unlisten = await opened.listen?.(notifyChannel, () => worker.wake(DELIVERY_TASK_ID));
      worker.start();
    }
    return opened.db;
  }

  function ensureReady(): Promise<Kysely<Database>> {
    if (closed) return Promise.reject(new ApiError(503, "This Faultline instance is closed"));
    initialised ??= init().catch((error: unknown) => {
      initialised = undefined; // a later call may retry (the database may come up)
      throw error;
    });
    return initialised;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    closing.abort();
    await initialised?.catch(() => undefined);
    await worker.stop();
    await unlisten?.().catch(() => undefined);
    for (const plugin of [...composition.plugins].reverse()) await plugin.close?.({ container });
    const opened = await connection?.catch(() => undefined);
    await opened?.close();
    db = undefined;
  }

  const tasks = [deliveryTask(options.delivery.pollIntervalMs), deliveryRetentionTask, ...composition.plugins.flatMap((plugin) => plugin.tasks ?? [])];
  const worker = new Worker(tasks, { container, clock, logger, metrics, ready: () => ensureReady() });
  const health = createHealth({
    ping: async () => sql`SELECT 1`.execute((await connect()).root),
    pendingMigrations: listPendingMigrations,
    initialise: ensureReady,
    closed: () => closed,
    worker,
    checks: composition.plugins.flatMap((plugin) => plugin.readiness ?? []),
    container,
    clock,
    options: options.health,
  });
  const api = buildApi(composition.plugins, container, ensureReady) as ApiOf<P>;
  // Every route as data: for OpenAPI, and as `api.<area>.<operation>` where plugins have no such name.
  const routes = [...composition.router.entries()].map(({ value, owner }) => ({
    endpoint: value.endpoint,
    plugin: owner,
    protocolErrors: composition.plugins.some((plugin) => plugin.errorRenderer?.matches(value.endpoint.path.replace(/\{[^}]+\}/g, "x"))),
  }));
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
  const handler = createPipeline({ composition, container, options: pipelineOptions, logger, clock, metrics, ready: ensureReady });
  return {
    handler,
    api,
    ready: async () => void (await ensureReady()),
    migrate,
    migrationStatus: async () => {
      const opened = await connect();
      await reachDatabase(opened);
      return readMigrationStatus(opened.root);
    },
    close,
    worker,
    health,
    metrics,
    container,
    services: () => registeredTokens(container),
    call: inProcess.call,
  };
}

/** Merges plugin API namespaces; every function awaits initialisation first. */
function buildApi(plugins: readonly FaultlinePlugin[], container: DependencyContainer, ready: () => Promise<unknown>): object {
  const api: Record<string, Record<string, unknown>> = {};
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const [namespace, operations] of Object.entries(plugin.api?.(container) ?? {})) {
      const owner = owners.get(namespace);
      if (owner) throw new Error(`API namespace conflict: "${namespace}" is provided by plugins "${owner}" and "${plugin.id}"`);
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
