import type { SchemaMigration } from "../../../db/migrations/types.js";

/** The issues plugin's own migrations (its table `faultline_migration_issues`), after its shares of the original ones. */
export const issuesOwnMigrations: readonly SchemaMigration[] = [
  {
    /** Why each subscriber follows an issue (Sentry's `subscriptionDetails.reason`); null for rows from before. */
    name: "0001_subscription_reason",
    statements: (s) => [`ALTER TABLE ${s}.issue_user_state ADD COLUMN subscription_reason text`],
  },
  {
    /**
     * Search by event fields (`user.email:`, `error.type:`) and the organization's tag keys (an
     * unknown key is a 400, docs/search.md). Tag keys are filled from what is stored; field values
     * only from events digested from now on (reading every stored payload would make the upgrade
     * as long as the event table is big).
     */
    name: "0002_search_values",
    statements: (s) => [
      `CREATE TABLE ${s}.issue_search_values (issue_id bigint NOT NULL, field text NOT NULL, value text NOT NULL, PRIMARY KEY (issue_id, field, value))`,
      `CREATE TABLE ${s}.issue_tag_keys (
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        key text NOT NULL,
        PRIMARY KEY (organization_id, key)
      )`,
      `INSERT INTO ${s}.issue_tag_keys (organization_id, key)
        SELECT DISTINCT i.organization_id, t.key FROM ${s}.issue_tags t JOIN ${s}.issues i ON i.id = t.issue_id`,
    ],
  },
  {
    /**
     * Discarded issues' tombstones (docs/issues.md, "Discard"): ingest reads a project's hashes
     * by `project_id`. And the share id's lookup (the unauthenticated shared-issue page) by a
     * unique index: one index probe whatever the id asked for.
     */
    name: "0003_issue_tombstones",
    statements: (s) => [
      `CREATE TABLE ${s}.issue_tombstones (
        id bigserial PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        previous_issue_id bigint NOT NULL,
        hashes text[] NOT NULL,
        level text NOT NULL,
        title text NOT NULL,
        culprit text NOT NULL,
        type text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        actor_user_id integer REFERENCES ${s}.users (id) ON DELETE SET NULL,
        date_added timestamptz NOT NULL
      )`,
      `CREATE INDEX issue_tombstones_by_project ON ${s}.issue_tombstones (project_id, date_added DESC, id DESC)`,
      `CREATE UNIQUE INDEX issues_share_id ON ${s}.issues (share_id) WHERE share_id IS NOT NULL`,
    ],
  },
  {
    /** The logger of the issue's first event (Sentry's `logger`); null for issues from before and events without one. */
    name: "0004_issue_logger",
    statements: (s) => [`ALTER TABLE ${s}.issues ADD COLUMN logger text`],
  },
];
