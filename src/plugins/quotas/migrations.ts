import type { SchemaMigration } from "../../db/migrations/types.js";

/** The quotas plugin's own tables (tracked in its own migration table). */
export const quotasMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_organization_quotas",
    statements: (s) => [
      `CREATE TABLE ${s}.organization_quotas (
        organization_id integer PRIMARY KEY REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        events_per_hour integer CHECK (events_per_hour >= 0),
        events_per_month integer CHECK (events_per_month >= 0),
        spike_multiple double precision CHECK (spike_multiple > 0),
        spike_minimum_per_hour integer CHECK (spike_minimum_per_hour >= 0),
        throttled_episode text,
        date_updated timestamptz NOT NULL
      )`,
      `CREATE TABLE ${s}.organization_quota_windows (
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        period text NOT NULL CHECK (period IN ('hour', 'month')),
        window_start timestamptz NOT NULL,
        used integer NOT NULL,
        PRIMARY KEY (organization_id, period, window_start)
      )`,
    ],
  },
];
