import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The service hooks plugin's shares of Faultline's original migrations, under their original names in
 * the core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them
 * find them applied.
 */
export const serviceHooksMigrations: readonly SchemaMigration[] = [
  /** Sentry's service hooks: a project's webhook URLs and the events they get. */
  {
    name: "0004_delivery",
    statements: (s) => [
      `CREATE TABLE ${s}.service_hooks (
        id text PRIMARY KEY,
        seq integer GENERATED ALWAYS AS IDENTITY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        secret text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        date_created timestamptz NOT NULL
      )`,
      `CREATE INDEX service_hooks_listing ON ${s}.service_hooks (project_id, date_created DESC, seq DESC)`,
    ],
  },
];
