import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The external issues plugin's shares of Faultline's original migrations, under their original names in
 * the core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them
 * find them applied.
 */
export const externalIssuesMigrations: readonly SchemaMigration[] = [
  /** Links between issues and the issues of installed apps' trackers. */
  {
    name: "0002_issues",
    statements: (s) => [
      `CREATE TABLE ${s}.external_issues (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        installation_id integer NOT NULL REFERENCES ${s}.app_installations (id) ON DELETE CASCADE,
        issue_id bigint NOT NULL,
        web_url text NOT NULL,
        identifier text NOT NULL,
        date_created timestamptz NOT NULL,
        UNIQUE (installation_id, issue_id)
      )`,
      `CREATE INDEX external_issues_by_issue ON ${s}.external_issues (issue_id)`,
    ],
  },
  /** The listing of an installation's links, newest first. */
  {
    name: "0005_apps",
    statements: (s) => [
      `CREATE INDEX external_issues_listing ON ${s}.external_issues (installation_id, date_created DESC, id DESC)`,
    ],
  },
];

/** The external issues plugin's own migrations (its table `faultline_migration_external-issues`). */
export const externalIssuesOwnMigrations: readonly SchemaMigration[] = [
  {
    /**
     * The external tracker's project a link names (Sentry's `project`, e.g. `JIRA-PROJ`); null for
     * links made before, which named the issue's own project.
     */
    name: "0001_external_project",
    statements: (s) => [`ALTER TABLE ${s}.external_issues ADD COLUMN project text`],
  },
];
