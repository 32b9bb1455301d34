import type { SchemaMigration } from "./types.js";

/**
 * One migration set from several owners' shares: shares of one name become one migration (their
 * statements in the order the sets are given: the core's, then the plugins' in dependency order),
 * and the migrations are sorted by name, as Kysely applies them. Faultline's original migrations
 * each created several areas' tables; split by owner and joined here, they run as they always
 * did, and an install that ran them finds every name applied.
 */
export function mergeMigrationShares(sets: readonly (readonly SchemaMigration[])[]): SchemaMigration[] {
  const byName = new Map<string, SchemaMigration[]>();
  for (const set of sets) {
    const seen = new Set<string>();
    for (const share of set) {
      if (seen.has(share.name)) throw new Error(`Migration "${share.name}" is listed twice in one set`);
      seen.add(share.name);
      byName.set(share.name, [...(byName.get(share.name) ?? []), share]);
    }
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, shares]) => ({ name, statements: (schema) => shares.flatMap((share) => share.statements(schema)) }));
}
