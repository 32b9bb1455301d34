import type { SchemaMigration } from "../../db/migrations/types.js";

/** The notifications plugin's migrations (its own table, `faultline_migration_notifications`). */
export const notificationsMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_notifications",
    statements: (s) => [
      `CREATE TABLE ${s}.notification_settings (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        user_id integer REFERENCES ${s}.users (id) ON DELETE CASCADE,
        project_id integer REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        category text NOT NULL CHECK (category IN ('alerts', 'workflow')),
        channel text NOT NULL,
        enabled boolean NOT NULL,
        date_updated timestamptz NOT NULL
      )`,
      // One choice per scope: NULL user (the organization's default) and NULL project (all) count as values.
      `CREATE UNIQUE INDEX notification_settings_scope ON ${s}.notification_settings
        (organization_id, coalesce(user_id, 0), coalesce(project_id, 0), category, channel)`,
      `CREATE TABLE ${s}.notification_keys (id integer PRIMARY KEY, secret text NOT NULL)`,
      `CREATE TABLE ${s}.notification_throttle (
        user_id integer NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        issue_id bigint NOT NULL,
        channel text NOT NULL,
        last_sent_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, issue_id, channel)
      )`,
      `CREATE INDEX notification_throttle_age ON ${s}.notification_throttle (last_sent_at)`,
      `CREATE TABLE ${s}.notification_digest_items (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        channel text NOT NULL,
        category text NOT NULL,
        notification jsonb NOT NULL,
        date_created timestamptz NOT NULL
      )`,
      `CREATE INDEX notification_digest_items_due ON ${s}.notification_digest_items (date_created)`,
    ],
  },
];
