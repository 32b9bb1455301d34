import type { SchemaMigration } from "./types.js";

/**
 * 0002_issues, the core's share: a rate limit per DSN key. The rest of 0002 created the issues'
 * tables (src/plugins/issues/migrations.ts) and the external issue links
 * (src/plugins/external-issues/migrations.ts); the shares of one name run together.
 */
export const issuesMigration: SchemaMigration = {
  name: "0002_issues",
  statements: (s) => [`ALTER TABLE ${s}.project_keys ADD COLUMN rate_limit_per_minute integer`],
};
