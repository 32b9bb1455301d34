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
];
