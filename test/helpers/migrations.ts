import { coreMigrations } from "../../src/db/migrations/index.js";
import { firstPartyPlugins } from "../../src/plugins/index.js";

/**
 * Every migration an instance without host plugins applies, as `migrate` reports them: the core's,
 * then each first-party plugin's own (prefixed with its id, like a host plugin's).
 */
export const firstPartyMigrationNames: readonly string[] = [
  ...coreMigrations.map((migration) => migration.name),
  ...firstPartyPlugins.flatMap((plugin) => ("migrations" in plugin ? (plugin.migrations ?? []) : []).map((migration) => `${plugin.id}:${migration.name}`)),
];
