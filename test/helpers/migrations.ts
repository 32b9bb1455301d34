import { composePlugins } from "../../src/plugin/compose.js";
import { firstPartyPlugins } from "../../src/plugins/index.js";

const composition = composePlugins([...firstPartyPlugins]);

/** What the core's migration table tracks for the first-party plugins: the core's migrations with the plugins' shares joined in. */
export const coreLedgerMigrations = composition.coreLedgerMigrations;

/**
 * Every migration an instance without host plugins applies, as `migrate` reports them: the core's
 * table's, then each first-party plugin's own (prefixed with its id, like a host plugin's), in the
 * order composition runs the plugins (dependencies first).
 */
export const firstPartyMigrationNames: readonly string[] = [
  ...coreLedgerMigrations.map((migration) => migration.name),
  ...composition.plugins.flatMap((plugin) =>
    ("migrations" in plugin ? (plugin.migrations ?? []) : []).map((migration) => `${plugin.id}:${migration.name}`),
  ),
];
