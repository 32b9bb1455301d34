import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The release-health plugin's own tables, tracked in its own migration table
 * (`faultline_migration_release_health`). docs/release-health.md, "Storage".
 */
export const releaseHealthMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_release_health",
    statements: (s) => [
      `CREATE TABLE ${s}.release_health_buckets (
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        organization_id integer NOT NULL,
        release text NOT NULL,
        environment text NOT NULL DEFAULT '',
        bucket timestamptz NOT NULL,
        sessions bigint NOT NULL DEFAULT 0,
        errored bigint NOT NULL DEFAULT 0,
        abnormal bigint NOT NULL DEFAULT 0,
        crashed bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, release, environment, bucket)
      )`,
      // Reads take the organization's projects over a window; retention deletes a project's old buckets.
      `CREATE INDEX release_health_buckets_window ON ${s}.release_health_buckets (project_id, bucket)`,
      `CREATE TABLE ${s}.release_health_unhealthy_sessions (
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        release text NOT NULL,
        environment text NOT NULL DEFAULT '',
        bucket timestamptz NOT NULL,
        session_hash bigint NOT NULL,
        status smallint NOT NULL CHECK (status BETWEEN 1 AND 3),
        PRIMARY KEY (project_id, release, environment, bucket, session_hash)
      )`,
      `CREATE INDEX release_health_unhealthy_sessions_window ON ${s}.release_health_unhealthy_sessions (project_id, bucket)`,
      `CREATE TABLE ${s}.release_health_users (
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        release text NOT NULL,
        environment text NOT NULL DEFAULT '',
        bucket timestamptz NOT NULL,
        user_hash bigint NOT NULL,
        crashed boolean NOT NULL DEFAULT false,
        PRIMARY KEY (project_id, release, environment, bucket, user_hash)
      )`,
      `CREATE INDEX release_health_users_window ON ${s}.release_health_users (project_id, bucket)`,
    ],
  },
];
