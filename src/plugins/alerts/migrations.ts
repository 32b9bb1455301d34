import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The alerts plugin's shares of Faultline's original migrations, under their original names in
 * the core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them
 * find them applied.
 */
export const alertsMigrations: readonly SchemaMigration[] = [
  /**
   * Alert rules: issue rules with their per-issue firing state, the per-minute event counters that
   * `event_frequency` reads, metric rules and their incidents.
   */
  {
    name: "0006_alerts",
    statements: (s) => [
      `CREATE TABLE ${s}.issue_stats_minutely (
        issue_id bigint NOT NULL,
        environment text NOT NULL DEFAULT '',
        bucket timestamptz NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (issue_id, bucket, environment)
      )`,
      // Maintained by a statement-level trigger on the ingest INSERT: one upsert per batch, in the
      // ingest transaction, and already visible when the error.created subscribers evaluate rules.
      // Buckets are computed from the epoch so the session time zone cannot shift them.
      `CREATE FUNCTION ${s}.faultline_count_events_minutely() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO ${s}.issue_stats_minutely AS m (issue_id, environment, bucket, count)
        SELECT issue_id, coalesce(environment, ''), to_timestamp(floor(extract(epoch FROM "timestamp") / 60) * 60), count(*)::integer
        FROM inserted_events
        GROUP BY 1, 2, 3
        ORDER BY 1, 3, 2
        ON CONFLICT (issue_id, bucket, environment) DO UPDATE SET count = m.count + excluded.count;
        RETURN NULL;
      END
      $fn$`,
      `CREATE TRIGGER events_count_minutely AFTER INSERT ON ${s}.events
        REFERENCING NEW TABLE AS inserted_events
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.faultline_count_events_minutely()`,
      `CREATE INDEX issue_stats_minutely_bucket ON ${s}.issue_stats_minutely (bucket)`,
      `CREATE TABLE ${s}.issue_alert_rules (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        action_match text NOT NULL CHECK (action_match IN ('all', 'any')),
        conditions jsonb NOT NULL,
        filters jsonb NOT NULL DEFAULT '[]',
        frequency integer NOT NULL,
        environment text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        date_created timestamptz NOT NULL
      )`,
      `CREATE INDEX issue_alert_rules_listing ON ${s}.issue_alert_rules (project_id, date_created DESC, id DESC)`,
      // At most one firing per (rule, issue) per frequency window: the claim is an upsert on this key.
      `CREATE TABLE ${s}.issue_alert_fires (
        rule_id integer NOT NULL REFERENCES ${s}.issue_alert_rules (id) ON DELETE CASCADE,
        issue_id bigint NOT NULL,
        last_fired_at timestamptz NOT NULL,
        PRIMARY KEY (rule_id, issue_id)
      )`,
      `CREATE INDEX issue_alert_fires_age ON ${s}.issue_alert_fires (last_fired_at)`,
      `CREATE TABLE ${s}.metric_alert_rules (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        name text NOT NULL,
        project_ids integer[] NOT NULL,
        query text NOT NULL DEFAULT '',
        aggregate text NOT NULL CHECK (aggregate IN ('count()', 'count_unique(user)')),
        time_window integer NOT NULL,
        threshold_type text NOT NULL CHECK (threshold_type IN ('above', 'below')),
        triggers jsonb NOT NULL,
        resolve_threshold double precision,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        date_created timestamptz NOT NULL,
        next_evaluation_at timestamptz NOT NULL
      )`,
      `CREATE INDEX metric_alert_rules_listing ON ${s}.metric_alert_rules (organization_id, date_created DESC, id DESC)`,
      `CREATE INDEX metric_alert_rules_due ON ${s}.metric_alert_rules (next_evaluation_at) WHERE status = 'active'`,
      `CREATE TABLE ${s}.metric_alert_incidents (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        rule_id integer NOT NULL REFERENCES ${s}.metric_alert_rules (id) ON DELETE CASCADE,
        identifier integer NOT NULL,
        status text NOT NULL CHECK (status IN ('warning', 'critical', 'resolved')),
        date_started timestamptz NOT NULL,
        date_detected timestamptz NOT NULL,
        date_closed timestamptz,
        UNIQUE (organization_id, identifier)
      )`,
      // One open incident per rule, whatever the number of evaluating workers.
      `CREATE UNIQUE INDEX metric_alert_incidents_open ON ${s}.metric_alert_incidents (rule_id) WHERE status <> 'resolved'`,
      `CREATE INDEX metric_alert_incidents_by_rule ON ${s}.metric_alert_incidents (rule_id, date_started DESC, id DESC)`,
      `CREATE TABLE ${s}.metric_alert_incident_activity (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        incident_id integer NOT NULL REFERENCES ${s}.metric_alert_incidents (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('open', 'warning', 'critical', 'resolved')),
        value double precision NOT NULL,
        date_created timestamptz NOT NULL
      )`,
      `CREATE INDEX metric_alert_incident_activity_by_incident ON ${s}.metric_alert_incident_activity (incident_id, id)`,
      // Incident identifiers count per organization (Sentry's), handed out under a row lock.
      `CREATE TABLE ${s}.metric_alert_sequences (
        organization_id integer PRIMARY KEY REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        last_identifier integer NOT NULL
      )`,
    ],
  },
  /** The counting trigger again, on the partitioned `events` the issues plugin's share of 0009 creates (the old one went with the old table). */
  {
    name: "0009_retention",
    statements: (s) => [
      // The minutely counts of the alert rules (0006) come from a statement trigger on `events`; it
      // went with the old table. Created after the copy, so the copied rows are not counted twice.
      `CREATE TRIGGER events_count_minutely AFTER INSERT ON ${s}.events
        REFERENCING NEW TABLE AS inserted_events
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.faultline_count_events_minutely()`,
    ],
  },
];

/** The alerts plugin's own migrations (its table `faultline_migration_alerts`), after its shares of the original ones. */
export const alertsOwnMigrations: readonly SchemaMigration[] = [
  {
    /** Issue rules' actions (email, chat, the legacy integrations); null for rules made before. */
    name: "0001_rule_actions",
    statements: (s) => [`ALTER TABLE ${s}.issue_alert_rules ADD COLUMN actions jsonb`],
  },
];
