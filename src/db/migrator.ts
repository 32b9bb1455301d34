import { type Kysely, type Migration, Migrator, sql } from "kysely";
import pRetry, { AbortError } from "p-retry";
import type { SchemaMigration } from "./migrations/types.js";
import { quoteIdentifier, SCHEMA_NAME_PATTERN } from "./identifiers.js";

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

/** Applies pending migrations with Kysely's Migrator, inside the configured schema. */
export async function runMigrations(root: Kysely<unknown>, options: RunMigrationsOptions): Promise<MigrationReport> {
  if (await allApplied(root, options)) return { applied: [] };
  await createSchemaIfMissing(root, options.schema);
  const quoted = quoteIdentifier(options.schema);
  const migrator = new Migrator({
    db: root,
    migrationTableSchema: options.schema,
    migrationTableName: options.tableName,
    migrationLockTableName: `${options.tableName}_lock`,
    provider: {
      getMigrations: async () => Object.fromEntries(options.migrations.map((m) => [m.name, toKyselyMigration(m, quoted)])),
    },
  });
  const { results } = await pRetry(
    async () => {
      const outcome = await migrator.migrateToLatest();
      if (!outcome.error) return outcome;
      const failed = outcome.results?.find((r) => r.status === "Error")?.migrationName;
      const wrapped = new Error(`Faultline migration ${failed ?? "run"} failed: ${errorMessage(outcome.error)}`, { cause: outcome.error });
      if (failed !== undefined || !isConcurrentDrop(outcome.error)) throw new AbortError(wrapped);
      throw wrapped;
    },
    { retries: 3, minTimeout: 50, maxTimeout: 500 },
  );
  return { applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}

/**
 * The Migrator looks for its tables by introspecting the whole catalog, every schema included: a
 * table another process drops meanwhile (a test's schema, a dropped partition) can fail that read
 * with "relation … does not exist" (or "schema … does not exist"). Nothing of ours was touched, so the run is simply retried.
 */
function isConcurrentDrop(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "42P01" || code === "3F000"; // undefined table, undefined schema
}

/**
 * Whether every migration is already recorded: the usual start, answered with two small queries.
 * Kysely's Migrator would first make sure of its tables by introspecting the whole catalog (three
 * times per run, one run per plugin), which is slow on a just-started PGlite whose catalog caches
 * are cold.
 */
async function allApplied(root: Kysely<unknown>, options: RunMigrationsOptions): Promise<boolean> {
  if (!SCHEMA_NAME_PATTERN.test(options.tableName)) return false; // a long plugin id: the Migrator copes
  return (await pendingMigrations(root, options)).length === 0;
}

/** Names of `options.migrations` not recorded as applied (all of them before the first run); two small queries. */
export async function pendingMigrations(root: Kysely<unknown>, options: RunMigrationsOptions): Promise<string[]> {
  // A long plugin id makes a table name the pattern refuses; quoted by hand, as PostgreSQL does.
  const table = `${quoteIdentifier(options.schema)}."${options.tableName.replaceAll('"', '""')}"`;
  const { rows } = await sql<{ found: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS found`.execute(root);
  if (!rows[0]?.found) return options.migrations.map((migration) => migration.name);
  const recorded = await sql<{ name: string }>`SELECT name FROM ${sql.raw(table)}`.execute(root);
  const names = new Set(recorded.rows.map((row) => row.name));
  return options.migrations.filter((migration) => !names.has(migration.name)).map((migration) => migration.name);
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
