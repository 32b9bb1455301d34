import type { SchemaMigration } from "../../db/migrations/types.js";

/** The data-scrubbing plugin's own table (tracked in `faultline_migration_data_scrubbing`). */
export const dataScrubbingMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_project_data_scrubbing",
    statements: (s) => [
      `CREATE TABLE ${s}.project_data_scrubbing (
        project_id integer PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        data_scrubber boolean NOT NULL,
        data_scrubber_defaults boolean NOT NULL,
        scrub_ip_addresses boolean NOT NULL,
        sensitive_fields text[] NOT NULL DEFAULT '{}',
        safe_fields text[] NOT NULL DEFAULT '{}'
      )`,
    ],
  },
];
