import { type Kysely, sql } from "kysely";
import pRetry from "p-retry";
import type { DependencyContainer } from "tsyringe";
import { type DatabaseConnection, type DatabaseInput, openDatabase } from "../db/connect.js";
import { DatabaseUnavailableError, describeError, isConnectionFailure, MigrationsPendingError } from "../db/errors.js";
import type { MigrationReport, MigrationStatus } from "../db/migrator.js";
import type { Database } from "../db/schema.js";
import { DELIVERY_TASK_ID } from "../delivery/tasks.js";
import { ApiError } from "../http/errors.js";
import type { Logger } from "../logging/logger.js";
import type { ResolvedOptions } from "../options.js";
import type { Composition } from "../plugin/compose.js";
import type { Worker } from "../worker/worker.js";
import { InstanceMigrations } from "./migrations.js";

export interface LifecycleDeps {
  options: ResolvedOptions;
  database: DatabaseInput;
  /** No `database` option and no DATABASE_URL: the store nobody chose, said at warn. */
  implicitStore: boolean;
  logger: Logger;
  composition: Composition;
  container: DependencyContainer;
  /** The NOTIFY channel through which other processes' commits wake this worker. */
  notifyChannel: string;
  /** The instance's worker (built after the lifecycle: it waits for `ready`). */
  worker(): Worker;
}

/**
 * An instance's life, in stages: connect → migrate → each plugin's `init` → the worker starts,
 * run once on the first request, API call or `ready()` (and again after a failure: the database
 * may come up); then `close()` in reverse.
 */
export class InstanceLifecycle {
  readonly migrations: InstanceMigrations;
  #connection: Promise<DatabaseConnection> | undefined;
  #started: Promise<Kysely<Database>> | undefined;
  #db: Kysely<Database> | undefined;
  #closed = false;
  /** Aborted by close(): ends a startup wait for the database. */
  readonly #closing = new AbortController();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly deps: LifecycleDeps) {
    this.migrations = new InstanceMigrations(deps.options.schema, deps.composition, deps.logger);
  }

  /** The database once started; what the `Db` token resolves to. */
  get db(): Kysely<Database> {
    if (!this.#db) throw new Error("Faultline is not ready: await faultline.ready() first");
    return this.#db;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Opens the database once (a failed attempt is forgotten, so a later call retries). */
  connect(): Promise<DatabaseConnection> {
    const { database, options, logger } = this.deps;
    this.#connection ??= openDatabase(database, options.schema, {
      logger,
      connectTimeoutMs: options.connection.timeoutMs,
    }).catch((error: unknown) => {
      this.#connection = undefined;
      throw error;
    });
    return this.#connection;
  }

  /** The database, reached: a database that is down gives the same one clear error as at start. */
  async reach(): Promise<DatabaseConnection> {
    const opened = await this.connect();
    await this.#reachable(opened);
    return opened;
  }

  async migrate(): Promise<MigrationReport> {
    return this.migrations.apply((await this.reach()).root);
  }

  async migrationStatus(): Promise<MigrationStatus> {
    return this.migrations.status((await this.reach()).root);
  }

  async pendingMigrations(): Promise<string[]> {
    return (await this.migrations.status((await this.connect()).root)).pending;
  }

  /** Starts the instance once; every request, API call and task awaits this. */
  ready(): Promise<Kysely<Database>> {
    if (this.#closed) return Promise.reject(new ApiError(503, "This Faultline instance is closed"));
    this.#started ??= this.#start().catch((error: unknown) => {
      this.#started = undefined; // a later call may retry (the database may come up)
      throw error;
    });
    return this.#started;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    await this.#started?.catch(() => undefined);
    await this.deps.worker().stop();
    await this.#unlisten?.().catch(() => undefined);
    for (const plugin of [...this.deps.composition.plugins].reverse())
      await plugin.close?.({ container: this.deps.container });
    const opened = await this.#connection?.catch(() => undefined);
    await opened?.close();
    this.#db = undefined;
  }

  async #start(): Promise<Kysely<Database>> {
    const { options, composition, container } = this.deps;
    const opened = await this.reach();
    if (options.autoMigrate) await this.migrations.apply(opened.root);
    else {
      // Fail here, naming what is missing, rather than on every query that needs it.
      const { pending } = await this.migrations.status(opened.root);
      if (pending.length > 0) throw new MigrationsPendingError(options.schema, pending);
    }
    this.#announceStorage(opened);
    this.#db = opened.db;
    for (const plugin of composition.plugins) await plugin.init?.({ container });
    if (options.worker) {
      const worker = this.deps.worker();
      // Other processes' commits wake this worker through NOTIFY; polling is the fallback.
      this.#unlisten = await opened.listen?.(this.deps.notifyChannel, () => worker.wake(DELIVERY_TASK_ID));
      worker.start();
    }
    return opened.db;
  }

  /**
   * One query before anything else, so that a database that is down gives one clear error (or,
   * with `connection.startupWaitMs`, is waited for with backoff) rather than a failure deep in
   * migrations.
   */
  async #reachable(opened: DatabaseConnection): Promise<void> {
    const { options, logger } = this.deps;
    const waitMs = options.connection.startupWaitMs;
    try {
      await pRetry(() => sql`SELECT 1`.execute(opened.root), {
        retries: waitMs > 0 ? Number.POSITIVE_INFINITY : 0,
        maxRetryTime: waitMs,
        minTimeout: 200,
        maxTimeout: 5_000,
        randomize: true,
        signal: this.#closing.signal,
        shouldRetry: ({ error }) => isConnectionFailure(error),
        onFailedAttempt: ({ error, attemptNumber }) => {
          if (waitMs > 0 && isConnectionFailure(error))
            logger.warn({ err: error, attemptNumber }, `faultline: waiting for ${opened.label}`);
        },
      });
    } catch (error) {
      if (this.#closing.signal.aborted) throw new ApiError(503, "This Faultline instance is closed");
      if (!isConnectionFailure(error)) throw error;
      const waited = waitMs > 0 ? ` (waited ${waitMs} ms)` : "";
      throw new DatabaseUnavailableError(
        `Faultline could not connect to ${opened.label}${waited}: ${describeError(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * Where the data goes. A store nobody chose (no `database`, no DATABASE_URL) is said at warn,
   * which the default logger prints: a newcomer sees where the data went, and a deploy that forgot
   * DATABASE_URL sees that it writes to a local directory instead of its PostgreSQL.
   */
  #announceStorage(opened: DatabaseConnection): void {
    const { options, logger } = this.deps;
    const storage = `faultline: storage ${opened.label}, schema ${options.schema}`;
    const fields = { storage: opened.label, schema: options.schema };
    if (this.deps.implicitStore) {
      logger.warn(
        fields,
        `${storage} (the default: no \`database\` option and no DATABASE_URL; one process at a time, use PostgreSQL to share or in production)`,
      );
    } else logger.info(fields, storage);
  }
}
