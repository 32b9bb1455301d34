import type { Kysely } from "kysely";
import {
  type MigrationReport,
  type MigrationStatus,
  migrationStatus,
  type RunMigrationsOptions,
  runMigrations,
} from "../db/migrator.js";
import type { Logger } from "../logging/logger.js";
import { type Composition, migrationTableName } from "../plugin/compose.js";

/**
 * An instance's migration sets: the core's migration table (the core's migrations with the
 * first-party plugins' shares joined in), then each plugin's own table (its names prefixed
 * `plugin:` in reports).
 */
export class InstanceMigrations {
  readonly #sets: { prefix: string; run: RunMigrationsOptions }[];

  constructor(
    schema: string,
    composition: Composition,
    private readonly logger: Logger,
  ) {
    this.#sets = [
      { prefix: "", run: { schema, migrations: composition.coreLedgerMigrations, tableName: "faultline_migration" } },
      ...composition.plugins
        .filter((plugin) => plugin.migrations?.length)
        .map((plugin) => ({
          prefix: `${plugin.id}:`,
          run: { schema, migrations: plugin.migrations ?? [], tableName: migrationTableName(plugin) },
        })),
    ];
  }

  async apply(root: Kysely<unknown>): Promise<MigrationReport> {
    const applied: string[] = [];
    for (const { prefix, run } of this.#sets)
      applied.push(...(await runMigrations(root, run)).applied.map((name) => prefix + name));
    if (applied.length > 0) this.logger.info({ applied }, "faultline: migrations applied");
    return { applied };
  }

  async status(root: Kysely<unknown>): Promise<MigrationStatus> {
    const status: MigrationStatus = { applied: [], pending: [] };
    for (const { prefix, run } of this.#sets) {
      const own = await migrationStatus(root, run);
      status.applied.push(...own.applied.map((name) => prefix + name));
      status.pending.push(...own.pending.map((name) => prefix + name));
    }
    return status;
  }
}
