import type { SchemaMigration } from "../../db/migrations/types.js";

/** The crons plugin's tables, tracked in its own migration table (`faultline_migration_crons`). */
export const cronsMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_crons",
    statements: (s) => [
      `CREATE TABLE ${s}.cron_monitors (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        guid text NOT NULL UNIQUE,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        slug text NOT NULL,
        name text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'disabled')),
        schedule_type text NOT NULL CHECK (schedule_type IN ('crontab', 'interval')),
        schedule jsonb NOT NULL,
        checkin_margin integer NOT NULL,
        max_runtime integer NOT NULL,
        timezone text NOT NULL,
        failure_issue_threshold integer NOT NULL,
        recovery_threshold integer NOT NULL,
        date_created timestamptz NOT NULL,
        UNIQUE (organization_id, slug)
      )`,
      `CREATE TABLE ${s}.cron_monitor_environments (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        monitor_id integer NOT NULL REFERENCES ${s}.cron_monitors (id) ON DELETE CASCADE,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        name text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'ok', 'error')),
        last_checkin timestamptz,
        next_checkin timestamptz,
        next_checkin_latest timestamptz,
        failures integer NOT NULL DEFAULT 0,
        successes integer NOT NULL DEFAULT 0,
        issue_id bigint,
        date_created timestamptz NOT NULL,
        UNIQUE (monitor_id, name)
      )`,
      // The missed-check-in task's scan.
      `CREATE INDEX cron_monitor_environments_due ON ${s}.cron_monitor_environments (next_checkin_latest)
        WHERE next_checkin_latest IS NOT NULL`,
      `CREATE TABLE ${s}.cron_check_ins (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        guid text NOT NULL,
        monitor_id integer NOT NULL REFERENCES ${s}.cron_monitors (id) ON DELETE CASCADE,
        environment_id integer NOT NULL REFERENCES ${s}.cron_monitor_environments (id) ON DELETE CASCADE,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('in_progress', 'ok', 'error', 'missed', 'timeout')),
        duration integer,
        expected_time timestamptz,
        timeout_at timestamptz,
        date_created timestamptz NOT NULL,
        date_updated timestamptz NOT NULL,
        UNIQUE (monitor_id, guid)
      )`,
      `CREATE INDEX cron_check_ins_listing ON ${s}.cron_check_ins (monitor_id, date_created DESC, id DESC)`,
      // The timeout task's scan.
      `CREATE INDEX cron_check_ins_running ON ${s}.cron_check_ins (timeout_at) WHERE status = 'in_progress'`,
    ],
  },
];
