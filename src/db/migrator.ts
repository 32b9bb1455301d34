import { type Kysely, type Migration, Migrator, sql } from "kysely";
import pRetry, { AbortError } from "p-retry";
import type { SchemaMigration } from "./migrations/types.js";
import { quoteIdentifier } from "./identifiers.js";

/** Result of one migration run: the names applied now (empty when already up to date). */
export interface MigrationReport {
  applied: string[];
}

export interface RunMigrationsOptions {
  schema: string;
  migrations: readonly SchemaMigration[];
  /**
   * Our own bookkeeping table names, so a host that also runs Kysely's Migrator (on its default
   * `kysely_migration` tables) is never affected by ours.
   */
  tableName: string;
}

/** Which migrations of one set are recorded in the schema, and which are not yet. */
export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

/** Applies pending migrations with Kysely's Migrator, inside the configured schema. */
export async function runMigrations(root: Kysely<unknown>, options: RunMigrationsOptions): Promise<MigrationReport> {
  if ((await migrationStatus(root, options)).pending.length === 0) return { applied: [] };
  await createSchemaIfMissing(root, options.schema);
  const quoted = quoteIdentifier(options.schema);
  const migrator = new Migrator({
    db: root,
    migrationTableSchema: options.schema,
    migrationTableName: options.tableName,
    migrationLockTableName: `${options.tableName}_lock`,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(options.migrations.map((m) => [m.name, toKyselyMigration(m, quoted)])),
    },
  });
  const { results } = await pRetry(
    async () => {
      const outcome = await migrator.migrateToLatest();
      if (!outcome.error) return outcome;
      const failed = outcome.results?.find((r) => r.status === "Error")?.migrationName;
      const wrapped = new Error(`Faultline migration ${failed ?? "run"} failed: ${errorMessage(outcome.error)}`, {
        cause: outcome.error,
      });
      if (failed !== undefined || !isConcurrentDrop(outcome.error)) throw new AbortError(wrapped);
      throw wrapped;
    },
    { retries: 5, minTimeout: 50, maxTimeout: 500 },
  );
  return { applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}

/**
 * The Migrator looks for its tables by introspecting the whole catalog, every schema included: a
 * table another process drops meanwhile (a test's schema, a dropped partition) can fail that read
 * with "relation … does not exist", "schema … does not exist", or "column … does not exist" (from
 * `pg_get_serial_sequence` over a column whose table went away mid-scan). Only errors outside a
 * migration get here: nothing of ours was touched, so the run is simply retried.
 */
function isConcurrentDrop(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "42P01" || code === "3F000" || code === "42703"; // undefined table, schema, column
}

/**
 * Applied and pending migrations, read with two small queries (nothing is created). Also the usual
 * start's fast path: Kysely's Migrator would first make sure of its tables by introspecting the
 * whole catalog (three times per run, one run per plugin), which is slow on a just-started PGlite
 * whose catalog caches are cold.
 */
export async function migrationStatus(root: Kysely<unknown>, options: RunMigrationsOptions): Promise<MigrationStatus> {
  // Plugin table names are [a-z0-9_] (migrationTableName) but may pass 63 characters, which
  // SCHEMA_NAME_PATTERN refuses: PostgreSQL truncates them, as it does for the Migrator.
  const table = `${quoteIdentifier(options.schema)}."${options.tableName}"`;
  const { rows } = await sql<{ found: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS found`.execute(root);
  const recorded = rows[0]?.found
    ? (await sql<{ name: string }>`SELECT name FROM ${sql.raw(table)}`.execute(root)).rows
    : [];
  const names = new Set(recorded.map((row) => row.name));
  const all = options.migrations.map((migration) => migration.name);
  return { applied: all.filter((name) => names.has(name)), pending: all.filter((name) => !names.has(name)) };
}

function toKyselyMigration(migration: SchemaMigration, quotedSchema: string): Migration {
  return {
    up: async (db) => {
      for (const statement of migration.statements(quotedSchema)) await sql.raw(statement).execute(db);
    },
  };
}

/** Two processes starting together may both try to create the schema; the loser's error is harmless. */
async function createSchemaIfMissing(root: Kysely<unknown>, schema: string): Promise<void> {
  try {
    await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`).execute(root);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "23505" && code !== "42P06") throw error;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
