import type { SchemaMigration } from "./types.js";

/**
 * Rate-limit counters shared across instances (#17): one row per DSN key and window, to which
 * each instance adds the quota it leases. No foreign key (a deleted key's rows expire with their
 * window); the worker deletes ended windows.
 */
export const rateLimitsMigration: SchemaMigration = {
  name: "0010_rate_limits",
  statements: (s) => [
    `CREATE TABLE ${s}.rate_limit_windows (
      key_id integer NOT NULL,
      window_start timestamptz NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (key_id, window_start)
    )`,
    `CREATE INDEX rate_limit_windows_window_start ON ${s}.rate_limit_windows (window_start)`,
  ],
};
