import type { SchemaMigration } from "../../db/migrations/types.js";

/** The inbound-filters plugin's own table (tracked in its own migration table). */
export const inboundFiltersMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_inbound_filters",
    statements: (s) => [
      `CREATE TABLE ${s}.inbound_filters (
        project_id integer PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        browser_extensions boolean NOT NULL DEFAULT false,
        localhost boolean NOT NULL DEFAULT false,
        web_crawlers boolean NOT NULL DEFAULT false,
        legacy_browsers text[] NOT NULL DEFAULT '{}',
        error_messages text[] NOT NULL DEFAULT '{}',
        releases text[] NOT NULL DEFAULT '{}',
        date_updated timestamptz NOT NULL
      )`,
    ],
  },
];
