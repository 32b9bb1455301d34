import type { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";

/**
 * Where Faultline keeps its data.
 * - a `postgres://` connection string or a `pg` Pool: production PostgreSQL;
 * - a PGlite instance, or `{ dataDir }`: embedded PostgreSQL (in memory, or on disk);
 * - an existing `Kysely` instance of the host's;
 * - a function returning any of these (called on first use, so construction opens nothing).
 * Absent: an in-memory embedded PGlite.
 */
export type DatabaseInput = DatabaseSource | (() => DatabaseSource | Promise<DatabaseSource>);

/** A database given directly (not through a factory). */
export type DatabaseSource = string | pg.Pool | PGlite | Kysely<unknown> | { dataDir: string };

/** An open database: the schema-scoped Kysely, the root one, and how to release what we opened. */
export interface DatabaseConnection {
  db: Kysely<Database>;
  root: Kysely<unknown>;
  engine: "postgres" | "pglite" | "kysely";
  /** LISTEN on a channel (PostgreSQL and PGlite); undefined for a host's Kysely (polling only). Resolves to an unsubscribe. */
  listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
  /** Releases only what Faultline itself opened; a host's Pool, PGlite or Kysely stays open. */
  close(): Promise<void>;
}

export function isKysely(value: unknown): value is Kysely<unknown> {
  return hasFunctions(value, ["selectFrom", "withSchema", "destroy"]);
}

export function isPGlite(value: unknown): value is PGlite {
  return hasFunctions(value, ["exec", "query", "close"]) && "waitReady" in (value as object);
}

export function isPgPool(value: unknown): value is pg.Pool {
  return hasFunctions(value, ["connect", "query", "end"]) && "totalCount" in (value as object);
}

function hasFunctions(value: unknown, names: string[]): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === "function");
}

export async function openDatabase(input: DatabaseInput | undefined, schema: string): Promise<DatabaseConnection> {
  const source = typeof input === "function" ? await input() : input;
  const opened = await openSource(source);
  return { ...opened, db: (opened.root as Kysely<Database>).withSchema(schema) };
}

async function openSource(source: DatabaseSource | undefined): Promise<Omit<DatabaseConnection, "db">> {
  if (source === undefined) return openPGlite(await createPGlite(undefined), true);
  if (typeof source === "string") {
    const pool = new pg.Pool({ connectionString: source });
    return { ...withOwnedKysely(new Kysely({ dialect: new PostgresDialect({ pool }) }), "postgres"), listen: listenWith(() => pool.connect()) };
  }
  if (isKysely(source)) return { root: source, engine: "kysely", close: async () => {} };
  if (isPGlite(source)) return openPGlite(source, false);
  if (isPgPool(source)) {
    // Kysely's PostgresDialect ends the pool on destroy(); the pool is the host's, so we hand it a
    // wrapper whose end() is a no-op.
    const borrowed = Object.assign(Object.create(source) as pg.Pool, { end: async () => {} });
    return { ...withOwnedKysely(new Kysely({ dialect: new PostgresDialect({ pool: borrowed }) }), "postgres"), listen: listenWith(() => source.connect()) };
  }
  return openPGlite(await createPGlite(source.dataDir), true);
}

async function createPGlite(dataDir: string | undefined): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  return PGlite.create(dataDir);
}

/**
 * PGlite is a single connection, and the dialect queues queries per Kysely instance: two Kysely
 * instances on one PGlite would interleave their transactions. So every Faultline instance on the
 * same PGlite shares one root Kysely (and therefore one queue).
 */
const sharedPGliteRoots = new WeakMap<PGlite, Kysely<unknown>>();

async function openPGlite(pglite: PGlite, owned: boolean): Promise<Omit<DatabaseConnection, "db">> {
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
    close: async () => (owned ? kysely.destroy() : undefined),
    listen: async (channel, onNotify) => {
      const unsubscribe = await pglite.listen(channel, onNotify);
      return async () => unsubscribe();
    },
  };
}

function withOwnedKysely(root: Kysely<unknown>, engine: "postgres"): Omit<DatabaseConnection, "db"> {
  return { root, engine, close: () => root.destroy() };
}

/** A dedicated connection held for LISTEN; released (after UNLISTEN) on unsubscribe. */
function listenWith(connect: () => Promise<pg.PoolClient>) {
  return async (channel: string, onNotify: () => void) => {
    const client = await connect();
    client.on("notification", (message) => {
      if (message.channel === channel) onNotify();
    });
    await client.query(`LISTEN "${channel.replaceAll('"', "")}"`);
    return async () => {
      await client.query("UNLISTEN *").catch(() => undefined);
      client.release();
    };
  };
}
