import "reflect-metadata";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { createFaultline, type FaultlineApi, type FaultlineOptions } from "../index.js";
import type { Faultline } from "../faultline.js";
import type { FaultlinePlugin } from "../plugin/plugin.js";
import { randomHex } from "../crypto/secrets.js";
import { quoteIdentifier } from "../db/identifiers.js";
import type { PGliteLike } from "../db/connect.js";
import { createPGlite } from "../db/pglite.js";
import { dockerMightBeAvailable } from "./docker.js";

export type TestBackend = "postgres" | "testcontainers" | "pglite";

export interface TestInstanceOptions<P extends readonly FaultlinePlugin[] = []> extends Omit<
  FaultlineOptions,
  "database" | "schema" | "plugins"
> {
  plugins?: P;
  /** Force a backend instead of the automatic choice. */
  backend?: TestBackend;
  /** Print which backend was picked (once per process). Default true. */
  announce?: boolean;
}

export interface TestInstance<P extends readonly FaultlinePlugin[] = []> {
  faultline: Faultline<FaultlineApi<P>>;
  backend: TestBackend;
  /** The PostgreSQL schema this instance owns (dropped by `close()`). */
  schema: string;
  /** The database it runs on (a connection string or the shared PGlite), to open more instances on it. */
  database: string | PGliteLike;
  /** Closes the instance and drops its schema. */
  close(): Promise<void>;
}

let sharedPGlite: Promise<PGlite> | undefined;
let sharedContainerUrl: Promise<string | null> | undefined;
const announced = new Set<string>();

function announce(enabled: boolean, message: string) {
  if (!enabled || announced.has(message)) return;
  announced.add(message);
  process.stderr.write(`faultline/testing: ${message}\n`);
}

/**
 * One PGlite per process: creating one costs seconds, a schema per instance costs milliseconds.
 * Opened as Faultline opens its own in-memory database (settings, and the build's template).
 */
function pglite(): Promise<PGlite> {
  sharedPGlite ??= createPGlite(undefined);
  return sharedPGlite;
}

/** Starts one PostgreSQL container per process when a container runtime answers; null otherwise. */
function containerUrl(): Promise<string | null> {
  sharedContainerUrl ??= (async () => {
    if (!dockerMightBeAvailable()) return null;
    try {
      const { getContainerRuntimeClient } = await import("testcontainers");
      await getContainerRuntimeClient();
      const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
      const container = await new PostgreSqlContainer("postgres:17-alpine").start();
      return container.getConnectionUri();
    } catch {
      return null;
    }
  })();
  return sharedContainerUrl;
}

/** Which database a test instance uses: `TEST_DATABASE_URL`, else Docker via testcontainers, else PGlite. */
export async function pickBackend(): Promise<{ backend: TestBackend; url?: string }> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return { backend: "postgres", url };
  const fromContainer = await containerUrl();
  if (fromContainer) return { backend: "testcontainers", url: fromContainer };
  return { backend: "pglite" };
}

/**
 * A ready Faultline on a private schema of a real PostgreSQL (or embedded PGlite), for tests:
 * `TEST_DATABASE_URL` → that server; else a working Docker engine → a testcontainers PostgreSQL;
 * else an in-memory embedded PGlite (asked for explicitly, shared in the process). `close()` drops the schema.
 */
export async function createTestInstance<const P extends readonly FaultlinePlugin[] = []>(
  options: TestInstanceOptions<P> = {},
): Promise<TestInstance<P>> {
  const { backend: forced, announce: shouldAnnounce = true, ...faultlineOptions } = options;
  const picked =
    forced === "pglite"
      ? { backend: "pglite" as const }
      : forced
        ? { ...(await pickBackend()), backend: forced }
        : await pickBackend();
  const schema = `faultline_test_${randomHex(6)}`;

  if (picked.backend === "pglite") {
    announce(shouldAnnounce, "using embedded PGlite (set TEST_DATABASE_URL for PostgreSQL)");
    const db = await pglite();
    const faultline = createFaultline<P>({ ...faultlineOptions, database: db, schema });
    await faultline.ready();
    return {
      faultline,
      backend: "pglite",
      schema,
      database: db,
      close: async () => {
        await faultline.close();
        await db.exec(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      },
    };
  }

  const url = picked.url;
  if (!url) throw new Error(`faultline/testing: no connection URL for backend "${picked.backend}"`);
  announce(
    shouldAnnounce,
    picked.backend === "postgres"
      ? "using PostgreSQL from TEST_DATABASE_URL"
      : "using PostgreSQL in a testcontainers container",
  );
  const faultline = createFaultline<P>({ ...faultlineOptions, database: url, schema });
  await faultline.ready();
  return {
    faultline,
    backend: picked.backend,
    schema,
    database: url,
    close: async () => {
      await faultline.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Closes the process-wide PGlite (call from a global teardown if your runner keeps processes alive). */
export async function closeTestDatabases(): Promise<void> {
  const db = await sharedPGlite;
  sharedPGlite = undefined;
  await db?.close();
}

export { dockerMightBeAvailable } from "./docker.js";
