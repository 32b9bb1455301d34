import type { SchemaMigration } from "../../db/migrations/types.js";

/** The data-scrubbing plugin's own tables (tracked in `faultline_migration_data_scrubbing`). */
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
  {
    /** The organization-wide default (Sentry's organization settings): what it turns on, every project has on. */
    name: "0002_organization_data_scrubbing",
    statements: (s) => [
      `CREATE TABLE ${s}.organization_data_scrubbing (
        organization_id integer PRIMARY KEY REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        data_scrubber boolean NOT NULL,
        data_scrubber_defaults boolean NOT NULL,
        scrub_ip_addresses boolean NOT NULL,
        sensitive_fields text[] NOT NULL DEFAULT '{}',
        safe_fields text[] NOT NULL DEFAULT '{}'
      )`,
    ],
  },
];
