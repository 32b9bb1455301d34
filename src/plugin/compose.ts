import { coreMigrations, mergeMigrationShares } from "../db/migrations/index.js";
import type { SchemaMigration } from "../db/migrations/types.js";
import type { AnyEndpoint } from "../http/endpoint.js";
import { Router } from "../http/router.js";
import type { FaultlinePlugin } from "./plugin.js";

export interface Composition {
  /** Plugins ordered so that each comes after its dependencies. */
  plugins: FaultlinePlugin[];
  router: Router<{ endpoint: AnyEndpoint; plugin: FaultlinePlugin }>;
  /** What the core's migration table tracks: the core's migrations joined with the plugins' shares of them. */
  coreLedgerMigrations: SchemaMigration[];
}

/** The table that records a plugin's own migrations (ids differing only in punctuation or case share one). */
export function migrationTableName(plugin: FaultlinePlugin): string {
  return `faultline_migration_${plugin.id.replace(/[^a-z0-9]+/gi, "_").toLowerCase()}`;
}

/** Orders plugins by dependency and builds the router; throws on any conflict, naming both sides. */
export function composePlugins(plugins: readonly FaultlinePlugin[]): Composition {
  const byId = new Map<string, FaultlinePlugin>();
  for (const plugin of plugins) {
    if (byId.has(plugin.id)) throw new Error(`Plugin id conflict: two plugins are named "${plugin.id}"`);
    byId.set(plugin.id, plugin);
  }
  const migrationTables = new Map<string, string>();
  for (const plugin of plugins) {
    if (!plugin.migrations?.length) continue;
    const table = migrationTableName(plugin);
    const owner = migrationTables.get(table);
    if (owner)
      throw new Error(
        `Plugin migration conflict: plugins "${owner}" and "${plugin.id}" would share the migration table "${table}"; rename one`,
      );
    migrationTables.set(table, plugin.id);
  }
  const ordered = orderByDependencies(byId);
  const router = new Router<{ endpoint: AnyEndpoint; plugin: FaultlinePlugin }>();
  const operationOwners = new Map<string, string>();
  for (const plugin of ordered) {
    for (const [alias, segment] of Object.entries(plugin.pathAliases ?? {})) router.alias(alias, segment, plugin.id);
    for (const endpoint of plugin.endpoints ?? []) {
      router.add(endpoint.method, endpoint.path, { endpoint, plugin }, plugin.id);
      const owner = operationOwners.get(endpoint.operationId);
      if (owner)
        throw new Error(
          `Operation id conflict: "${endpoint.operationId}" is defined by plugins "${owner}" and "${plugin.id}"`,
        );
      operationOwners.set(endpoint.operationId, plugin.id);
    }
  }
  const coreLedgerMigrations = mergeMigrationShares([
    coreMigrations,
    ...ordered.map((plugin) => plugin.coreLedgerMigrations ?? []),
  ]);
  return { plugins: ordered, router, coreLedgerMigrations };
}

function orderByDependencies(byId: Map<string, FaultlinePlugin>): FaultlinePlugin[] {
  const ordered: FaultlinePlugin[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (plugin: FaultlinePlugin, path: string[]) => {
    if (state.get(plugin.id) === "done") return;
    if (state.get(plugin.id) === "visiting")
      throw new Error(`Plugin dependency cycle: ${[...path, plugin.id].join(" → ")}`);
    state.set(plugin.id, "visiting");
    for (const dependency of plugin.dependencies ?? []) {
      const required = byId.get(dependency);
      if (!required) throw new Error(`Plugin "${plugin.id}" depends on "${dependency}", which is not installed`);
      visit(required, [...path, plugin.id]);
    }
    state.set(plugin.id, "done");
    ordered.push(plugin);
  };
  for (const plugin of byId.values()) visit(plugin, []);
  return ordered;
}
