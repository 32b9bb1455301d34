import type { SchemaMigration } from "./types.js";

/**
 * Ingest outcomes (#14): how many events each project's SDKs sent and what became of them —
 * accepted, rate limited (key quota, full queue), or discarded by the SDK itself (client
 * reports) — per hour, as Sentry's stats page shows them. Counted in memory on the hot path and
 * added here in one upsert every few seconds, so a storm of refused events costs no row per event.
 */
export const ingestOutcomesMigration: SchemaMigration = {
  name: "0011_ingest_outcomes",
  statements: (s) => [
    `CREATE TABLE ${s}.ingest_outcomes (
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
      hour timestamptz NOT NULL,
      category text NOT NULL,
      outcome text NOT NULL,
      reason text NOT NULL DEFAULT '',
      quantity bigint NOT NULL,
      PRIMARY KEY (organization_id, hour, project_id, category, outcome, reason)
    )`,
  ],
};
