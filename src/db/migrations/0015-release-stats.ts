import type { SchemaMigration } from "./types.js";

/**
 * Per-project release statistics maintained at ingest (#16): when a release's first and last
 * event happened and how many issues it introduced, as Sentry's releases show them. Kept on the
 * row ingest already upserts, so reading a release list costs no scan of the events.
 */
export const releaseStatsMigration: SchemaMigration = {
  name: "0015_release_stats",
  statements: (s) => [
    `ALTER TABLE ${s}.releases ADD COLUMN first_event timestamptz`,
    `ALTER TABLE ${s}.releases ADD COLUMN last_event timestamptz`,
    `ALTER TABLE ${s}.releases ADD COLUMN new_groups integer NOT NULL DEFAULT 0`,
  ],
};
