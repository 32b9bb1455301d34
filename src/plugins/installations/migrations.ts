import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The installations plugin's shares of Faultline's original migrations, under their original names in
 * the core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them
 * find them applied.
 */
export const installationsMigrations: readonly SchemaMigration[] = [
  /** The app request log: every webhook request made to an app, with its answer. */
  {
    name: "0004_delivery",
    statements: (s) => [
      `CREATE TABLE ${s}.app_request_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        app_id integer NOT NULL REFERENCES ${s}.apps (id) ON DELETE CASCADE,
        organization_id integer NOT NULL,
        delivery_id uuid NOT NULL,
        attempt integer NOT NULL,
        event_type text NOT NULL,
        webhook_url text NOT NULL,
        response_code integer NOT NULL,
        is_error boolean NOT NULL,
        request_body text NOT NULL,
        response_body text NOT NULL,
        date_created timestamptz NOT NULL
      )`,
      `CREATE INDEX app_request_log_by_app ON ${s}.app_request_log (app_id, date_created DESC, id DESC)`,
    ],
  },
];
