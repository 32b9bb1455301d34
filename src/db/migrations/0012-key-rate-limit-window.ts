import type { SchemaMigration } from "./types.js";

/**
 * Sentry's key rate limit is `{window, count}`: `count` events per `window` seconds, set over
 * HTTP (docs/operations.md, "Rate limits across instances"). The count stays in
 * `rate_limit_per_minute` (its name predates windows: it is the count per window); the window, in
 * seconds, is new. Null = 60 s, what every existing limit meant.
 */
export const keyRateLimitWindowMigration: SchemaMigration = {
  name: "0012_key_rate_limit_window",
  statements: (s) => [
    `ALTER TABLE ${s}.project_keys ADD COLUMN rate_limit_window integer CHECK (rate_limit_window BETWEEN 1 AND 86400)`,
  ],
};
