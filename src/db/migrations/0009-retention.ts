import type { SchemaMigration } from "./types.js";

/**
 * 0009_retention, the core's share: a per-project retention override. Partitioning `events` by
 * week is the issues plugin's share (src/plugins/issues/migrations.ts); recreating the alert
 * rules' counting trigger on the new table, the alerts plugin's.
 */
export const retentionMigration: SchemaMigration = {
  name: "0009_retention",
  statements: (s) => [
    `ALTER TABLE ${s}.projects ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 1 AND 3650)`,
  ],
};
