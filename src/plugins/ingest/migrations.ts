import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The ingest plugin's shares of Faultline's original migrations, under their original names in
 * the core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them
 * find them applied.
 */
export const ingestMigrations: readonly SchemaMigration[] = [
  /**
   * The ingest queue (docs/issues.md, "Queued ingest (the default)"): accepted, normalised events
   * waiting for the digest stage to group and store them. A row is written by the accept path's
   * group commit and deleted in the digest's transaction that stored its event, so an acknowledged
   * event is either here or in `events`. No foreign keys: each would cost a lookup per accepted row
   * on the hot path.
   */
  {
    name: "0008_ingest_queue",
    statements: (s) => [
      `CREATE TABLE ${s}.ingest_queue (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project_id integer NOT NULL,
        organization_id integer NOT NULL,
        platform text,
        event text NOT NULL,
        attempts integer NOT NULL DEFAULT 0
      )`,
    ],
  },
  /**
   * Rate-limit counters shared across instances (docs/operations.md, "Rate limits across
   * instances"): one row per DSN key and window, to which each instance adds the quota it leases.
   * No foreign key (a deleted key's rows expire with their window); the worker deletes ended
   * windows.
   */
  {
    name: "0010_rate_limits",
    statements: (s) => [
      `CREATE TABLE ${s}.rate_limit_windows (
        key_id integer NOT NULL,
        window_start timestamptz NOT NULL,
        used integer NOT NULL,
        PRIMARY KEY (key_id, window_start)
      )`,
      `CREATE INDEX rate_limit_windows_window_start ON ${s}.rate_limit_windows (window_start)`,
    ],
  },
  /**
   * Ingest outcomes (docs/issues.md, "Outcomes: what became of sent events"): how many events each
   * project's SDKs sent and what became of them — accepted, rate limited (key quota, full queue),
   * or discarded by the SDK itself (client reports) — per hour, as Sentry's stats page shows them.
   * Counted in memory on the hot path and added here in one upsert every few seconds, so a storm of
   * refused events costs no row per event.
   */
  {
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
  },
];
