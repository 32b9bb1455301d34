import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import pRetry from "p-retry";
import type pg from "pg";
import type { Logger } from "../logging/logger.js";
import { lockDataDir } from "./data-dir-lock.js";
import { createPGlite } from "./pglite.js";
import type { Database } from "./schema.js";

/**
 * Where Faultline keeps its data.
 * - a `postgres://` connection string or a `pg` Pool: production PostgreSQL;
 * - a PGlite instance, or `{ dataDir }`: embedded PostgreSQL on disk;
 * - `{ inMemory: true }` or `"memory://"`: embedded PostgreSQL in memory, lost when the process
 *   exits (tests, demos; only ever when asked for);
 * - an existing `Kysely` instance of the host's;
 * - a function returning any of these (called on first use, so construction opens nothing).
 * Absent: `DATABASE_URL` when it is set, else an embedded PGlite on disk in
 * {@link DEFAULT_DATA_DIR} (docs/storage.md, "Choosing a database").
 */
export type DatabaseInput = DatabaseSource | (() => DatabaseSource | Promise<DatabaseSource>);

/** A database given directly (not through a factory). */
export type DatabaseSource =
  string | PgPoolLike | PGliteLike | Kysely<unknown> | { dataDir: string } | { inMemory: true };

/**
 * A PGlite instance (`@electric-sql/pglite`), described by the members Faultline relies on. Public
 * types name this rather than PGlite's class, whose declarations need Emscripten's global types
 * that a host does not have: a host's type check with `skipLibCheck: false` then fails in them.
 */
export interface PGliteLike {
  readonly waitReady: Promise<void>;
  query(query: string, params?: unknown[]): Promise<unknown>;
  exec(query: string): Promise<unknown>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * A `pg` Pool, described by the members Faultline relies on, so that a host needs no `@types/pg`
 * to type-check against Faultline's declarations.
 */
export interface PgPoolLike {
  readonly totalCount: number;
  connect(): Promise<unknown>;
  query(...args: never[]): unknown;
  end(): Promise<void>;
}

/** The embedded data directory used when neither `database` nor `DATABASE_URL` is given, relative to the working directory. */
export const DEFAULT_DATA_DIR = ".faultline/data";

/** The connection string that asks for an in-memory embedded database (handy in `DATABASE_URL` for tests). */
export const IN_MEMORY_URL = "memory://";

/**
 * The database of an instance given no `database`: `DATABASE_URL` when set, else the default
 * embedded data directory. Decided at construction so that a misconfigured environment fails
 * there, with a message naming the variable, rather than on the first request.
 */
export function defaultDatabase(env: NodeJS.ProcessEnv): DatabaseSource {
  const url = env.DATABASE_URL;
  if (url === undefined) return { dataDir: resolve(DEFAULT_DATA_DIR) };
  if (url.trim() === "") {
    throw new TypeError(
      'Invalid Faultline options: DATABASE_URL is set but empty; set it to a postgres:// URL (or "memory://" for a throwaway in-memory database), or unset it to use the embedded data directory .faultline/data',
    );
  }
  if (!isConnectionString(url)) {
    throw new TypeError(
      `Invalid Faultline options: DATABASE_URL must be a postgres:// or postgresql:// URL, or "memory://" (it starts with ${JSON.stringify(url.split(":")[0])})`,
    );
  }
  return url;
}

/** A string `database`: PostgreSQL's URL schemes, or {@link IN_MEMORY_URL}. */
export function isConnectionString(value: string): boolean {
  return value === IN_MEMORY_URL || /^postgres(ql)?:\/\//.test(value);
}

/** An open database: the schema-scoped Kysely, the root one, and how to release what we opened. */
export interface DatabaseConnection {
  db: Kysely<Database>;
  root: Kysely<unknown>;
  engine: "postgres" | "pglite" | "kysely";
  /** Where it is, for error messages: `host:port/database` (never credentials), or what was given. */
  label: string;
  /** LISTEN on a channel (PostgreSQL and PGlite); undefined for a host's Kysely (polling only). Resolves to an unsubscribe. */
  listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
  /** Releases only what Faultline itself opened; a host's Pool, PGlite or Kysely stays open. */
  close(): Promise<void>;
}

export function isKysely(value: unknown): value is Kysely<unknown> {
  return hasFunctions(value, ["selectFrom", "withSchema", "destroy"]);
}

export function isPGlite(value: unknown): value is PGliteLike {
  return hasFunctions(value, ["exec", "query", "close"]) && "waitReady" in (value as object);
}

export function isPgPool(value: unknown): value is PgPoolLike {
  return hasFunctions(value, ["connect", "query", "end"]) && "totalCount" in (value as object);
}

function hasFunctions(value: unknown, names: string[]): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === "function");
}

/** How connections to PostgreSQL are opened and watched. */
export interface ConnectOptions {
  logger: Logger;
  /** `connectionTimeoutMillis` of a pool Faultline creates from a connection string. */
  connectTimeoutMs: number;
}

export async function openDatabase(
  input: DatabaseInput,
  schema: string,
  options: ConnectOptions,
): Promise<DatabaseConnection> {
  const source = typeof input === "function" ? await input() : input;
  const opened = await openSource(source, options);
  return { ...opened, db: (opened.root as Kysely<Database>).withSchema(schema) };
}

async function openSource(source: DatabaseSource, options: ConnectOptions): Promise<Omit<DatabaseConnection, "db">> {
  if (source === IN_MEMORY_URL || (typeof source === "object" && "inMemory" in source)) {
    return openPGlite(await createPGlite(undefined), true, IN_MEMORY_LABEL);
  }
  if (typeof source === "string") {
    // keepAlive: an idle connection (LISTEN above all) notices a silently dropped route.
    // Loaded on demand: an embedded host never needs the driver, and it costs ~45 ms at start-up.
    const { Pool } = (await import("pg")).default;
    const pool = new Pool({
      connectionString: source,
      connectionTimeoutMillis: options.connectTimeoutMs,
      keepAlive: true,
    });
    return openPool(pool, true, options.logger, describeConnectionString(source));
  }
  if (isKysely(source))
    return { root: source, engine: "kysely", label: "the Kysely instance given as `database`", close: async () => {} };
  // The structural types stand for these classes (see PGliteLike and PgPoolLike).
  if (isPGlite(source))
    return openPGlite(source as unknown as PGlite, false, "embedded PGlite (the instance given as `database`)");
  if (isPgPool(source))
    return openPool(source as unknown as pg.Pool, false, options.logger, describePool(source as unknown as pg.Pool));
  const dataDir = resolve(source.dataDir);
  // PGlite would create only the last level; the default (.faultline/data) has two.
  mkdirSync(dataDir, { recursive: true });
  // One process at a time (PGlite has no lock of its own): taken before PGlite touches a file.
  const lock = lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    pglite = await createPGlite(dataDir);
  } catch (error) {
    lock.release();
    throw error;
  }
  const opened = await openPGlite(pglite, true, `embedded PGlite at ${dataDir}`);
  return {
    ...opened,
    close: async () => {
      try {
        await opened.close();
      } finally {
        lock.release(); // after PGlite has flushed and closed its files
      }
    },
  };
}

const IN_MEMORY_LABEL = "in-memory PGlite (data lost on exit)";

/**
 * Kysely and LISTEN over a `pg` Pool, guarded so that a lost connection is an error of the query
 * that used it, never an unhandled `'error'` event (which would end the host process):
 * - the pool's `'error'` (an idle connection died: a terminated backend, a restart, an idle
 *   timeout) is logged; pg-pool has already dropped that connection;
 * - every connection the pool opens gets an `'error'` listener as it is created (pg-pool's
 *   `'connect'` event, before anyone holds it: a backend terminated right after the handshake
 *   reports in the same read as its ReadyForQuery, before the borrower's code runs). A connection
 *   in use then fails its next query, and pg-pool drops it on release (no longer queryable);
 * - a host's pool may hold connections opened before Faultline's listener: one of those gets a
 *   listener for as long as Faultline holds it.
 * A host's pool gets these listeners while the instance is open; close() removes them and never
 * ends the pool.
 */
function openPool(pool: pg.Pool, owned: boolean, logger: Logger, label: string): Omit<DatabaseConnection, "db"> {
  const onIdleError = (error: Error) =>
    logger.warn(
      { err: error },
      "faultline: an idle database connection was lost (the pool opens a new one when needed)",
    );
  const onClientError = (error: Error) =>
    logger.warn({ err: error }, "faultline: a database connection was lost (a query on it fails and it is discarded)");
  const watched = new Set<pg.PoolClient>();
  const watch = (client: pg.PoolClient) => {
    client.on("error", onClientError);
    watched.add(client);
  };
  const forget = (client: pg.PoolClient) => watched.delete(client);
  pool.on("error", onIdleError);
  pool.on("connect", watch);
  pool.on("remove", forget);
  const forKysely: PostgresPool = {
    connect: async () => {
      const client = await pool.connect();
      return watched.has(client) ? client : guardWhileHeld(client, onClientError);
    },
    // Kysely's destroy() ends its pool. Ours keeps its listeners: a backend terminated just
    // before close() may report after it. A host's pool stays open, without them.
    end: async () => {
      if (owned) return pool.end();
      pool.off("error", onIdleError);
      pool.off("connect", watch);
      pool.off("remove", forget);
      for (const client of watched) client.off("error", onClientError);
      watched.clear();
    },
  };
  const root = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: forKysely }) });
  return {
    root,
    engine: "postgres",
    label,
    close: () => root.destroy(),
    listen: listenWith(() => pool.connect(), logger),
  };
}

/** Listens for `'error'` on a checked-out client (one opened before our listener) until it is released. */
function guardWhileHeld(client: pg.PoolClient, onError: (error: Error) => void): pg.PoolClient {
  client.on("error", onError);
  // pg-pool gives every checkout its own release function.
  const release = client.release.bind(client);
  client.release = (destroy?: Error | boolean) => {
    client.off("error", onError);
    release(destroy);
  };
  return client;
}

/** Where a host's pool connects, from its options (never credentials). */
function describePool(pool: pg.Pool): string {
  const { connectionString, host, port, database } = (pool as pg.Pool & { options?: pg.PoolConfig }).options ?? {};
  if (connectionString) return `${describeConnectionString(connectionString)} (the pg Pool given as \`database\`)`;
  return `PostgreSQL at ${host ?? "localhost"}:${port ?? 5432}/${database ?? ""} (the pg Pool given as \`database\`)`;
}

/** `host:port/database` of a connection string, without its credentials. */
function describeConnectionString(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `PostgreSQL at ${url.hostname || "localhost"}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "PostgreSQL (connection string not parseable as a URL)";
  }
}

/**
 * PGlite is a single connection, and the dialect queues queries per Kysely instance: two Kysely
 * instances on one PGlite would interleave their transactions. So every Faultline instance on the
 * same PGlite shares one root Kysely (and therefore one queue).
 */
const sharedPGliteRoots = new WeakMap<PGlite, Kysely<unknown>>();

async function openPGlite(pglite: PGlite, owned: boolean, label: string): Promise<Omit<DatabaseConnection, "db">> {
  let root = sharedPGliteRoots.get(pglite);
  if (!root) {
    const { PGliteDialect } = await import("kysely-pglite-dialect");
    root = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
    sharedPGliteRoots.set(pglite, root);
  }
  const kysely = root;
  // The dialect's destroy() closes the PGlite itself, so only an instance we created is destroyed.
  return {
    root: kysely,
    engine: "pglite",
    label,
    close: async () => (owned ? kysely.destroy() : undefined),
    listen: async (channel, onNotify) => {
      const unsubscribe = await pglite.listen(channel, onNotify);
      return async () => unsubscribe();
    },
  };
}

/** Reconnect delays of a lost LISTEN connection: from 100 ms, doubling with jitter, at most 10 s apart. */
const LISTEN_RECONNECT = { minTimeout: 100, maxTimeout: 10_000, factor: 2, randomize: true, unref: true } as const;

/**
 * A dedicated connection held for LISTEN. When it is lost (`'error'` or `'end'`) it is
 * discarded and a new one is opened with backoff until that succeeds or the subscription ends;
 * once listening again, `onNotify` is called once, since notifications sent in between were
 * lost: the subscriber catches up as if woken. The first connection is opened before this
 * resolves (a failure there rejects: startup reports it). Unsubscribing stops reconnecting and
 * releases the connection after UNLISTEN.
 */
function listenWith(connect: () => Promise<pg.PoolClient>, logger: Logger) {
  return async (channel: string, onNotify: () => void): Promise<() => Promise<void>> => {
    const statement = `LISTEN "${channel.replaceAll('"', "")}"`;
    const stop = new AbortController();
    let current: pg.PoolClient | undefined;
    const held = new Map<pg.PoolClient, () => void>();

    const onNotification = (message: pg.Notification) => {
      if (message.channel === channel) onNotify();
    };

    async function subscribe(): Promise<void> {
      const client = await connect();
      const onLost = (error?: Error) => lost(client, error);
      const detach = () => {
        client.off("notification", onNotification);
        client.off("error", onLost);
        client.off("end", onLost);
        // A dead client can still emit 'error'; pg-pool listens again only once it is released.
        client.on("error", () => undefined);
      };
      client.on("notification", onNotification);
      client.on("error", onLost);
      client.on("end", onLost);
      held.set(client, detach);
      try {
        await client.query(statement);
      } catch (error) {
        discard(client, error instanceof Error ? error : true);
        throw error;
      }
      if (stop.signal.aborted) return discard(client, true);
      current = client;
    }

    /** Stops listening to `client` and gives it back: `reason` (an error, or true) destroys it, false keeps it in the pool. */
    function discard(client: pg.PoolClient, reason: Error | boolean): void {
      held.get(client)?.();
      held.delete(client);
      client.release(reason);
    }

    function lost(client: pg.PoolClient, error: Error | undefined): void {
      if (current !== client) return; // 'error' and 'end' of one loss, or a connection already discarded
      current = undefined;
      discard(client, error ?? true);
      if (stop.signal.aborted) return;
      logger.warn(
        { err: error, channel },
        "faultline: the LISTEN connection was lost; reconnecting (polling covers the gap)",
      );
      void pRetry(subscribe, {
        ...LISTEN_RECONNECT,
        retries: Number.POSITIVE_INFINITY,
        signal: stop.signal,
        onFailedAttempt: ({ error: failure, attemptNumber }) =>
          logger.debug({ err: failure, channel, attemptNumber }, "faultline: LISTEN reconnect failed"),
      }).then(
        () => {
          if (stop.signal.aborted) return;
          logger.info({ channel }, "faultline: LISTEN connection restored");
          onNotify();
        },
        () => undefined, // aborted by unsubscribe
      );
    }

    await subscribe();
    return async () => {
      // A reconnect attempt still in flight is not waited for (a host's pool may have no connect
      // timeout): once it settles it sees the abort and gives its connection back.
      stop.abort();
      const client = current;
      current = undefined;
      if (!client) return;
      const unlistened = await client.query("UNLISTEN *").then(
        () => true,
        () => false,
      );
      discard(client, !unlistened);
    };
  };
}
