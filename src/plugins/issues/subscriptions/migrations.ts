import type { SchemaMigration } from "../../../db/migrations/types.js";

/** The issues plugin's own migrations (its table `faultline_migration_issues`), after its shares of the original ones. */
export const issuesOwnMigrations: readonly SchemaMigration[] = [
  {
    /** Why each subscriber follows an issue (Sentry's `subscriptionDetails.reason`); null for rows from before. */
    name: "0001_subscription_reason",
    statements: (s) => [`ALTER TABLE ${s}.issue_user_state ADD COLUMN subscription_reason text`],
  },
  {
    /** The logger of the issue's first event (Sentry's `logger`); null for issues from before and events without one. */
    name: "0005_issue_logger",
    statements: (s) => [`ALTER TABLE ${s}.issues ADD COLUMN logger text`],
  },
];
