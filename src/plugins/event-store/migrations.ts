import type { SchemaMigration } from "../../db/migrations/types.js";

/** Weeks of partitions created ahead of the current one (the worker keeps this many ahead too). */
export const PARTITIONS_AHEAD_WEEKS = 4;

/**
 * The event store's shares of Faultline's original migrations, under their original names in the
 * core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them find
 * them applied. The statements are the ones the issues plugin ran before the event store had a
 * room of its own (ARCHITECTURE.md, "Tables and migrations").
 */
export const eventStoreMigrations: readonly SchemaMigration[] = [
  /** The events: no foreign key to the issues, so this share may run before theirs. */
  {
    name: "0002_issues",
    statements: (s) => [
      `CREATE TABLE ${s}.events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL,
        project_id integer NOT NULL,
        issue_id bigint NOT NULL,
        event_id text NOT NULL,
        timestamp timestamptz NOT NULL,
        received timestamptz NOT NULL,
        level text NOT NULL,
        platform text,
        environment text,
        release text,
        dist text,
        type text NOT NULL,
        title text NOT NULL,
        culprit text NOT NULL DEFAULT '',
        message text NOT NULL DEFAULT '',
        location text,
        user_key text,
        tags jsonb NOT NULL DEFAULT '[]',
        hashes text[] NOT NULL DEFAULT '{}',
        size integer NOT NULL,
        payload jsonb NOT NULL,
        UNIQUE (project_id, event_id)
      )`,
      `CREATE INDEX events_by_issue ON ${s}.events (issue_id, timestamp DESC, id DESC)`,
    ],
  },
  /**
   * Retention: `events` becomes a table partitioned by week of `received` (the server's clock at
   * accept, never the client's timestamp), so expiry drops whole partitions instead of deleting
   * rows. A partitioned table's unique constraints must include the partition key, so the
   * per-project uniqueness of event ids that ingest deduplicates on moves to a narrow table of its
   * own, `event_ids`. Existing rows are copied into weekly partitions covering them (plus
   * {@link PARTITIONS_AHEAD_WEEKS} ahead) and a DEFAULT partition catches anything outside every
   * range, so an insert never fails.
   */
  {
    name: "0009_retention",
    statements: (s) => [
      // The old table keeps its index and constraint names until it is dropped: free them first.
      `ALTER TABLE ${s}.events RENAME TO events_unpartitioned`,
      `ALTER TABLE ${s}.events_unpartitioned DROP CONSTRAINT events_project_id_event_id_key`,
      `DROP INDEX ${s}.events_by_issue`,
      `ALTER TABLE ${s}.events_unpartitioned RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey`,
      // An identity column on a partitioned table needs PostgreSQL 17: a sequence works everywhere.
      `CREATE SEQUENCE ${s}.events_row_id_seq AS bigint`,
      // Same columns, order, defaults and NOT NULLs as before (the identity becomes the sequence's default).
      `CREATE TABLE ${s}.events (LIKE ${s}.events_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (received)`,
      `ALTER TABLE ${s}.events ALTER COLUMN id SET DEFAULT nextval('${s}.events_row_id_seq')`,
      `ALTER TABLE ${s}.events ADD PRIMARY KEY (id, received)`,
      `ALTER SEQUENCE ${s}.events_row_id_seq OWNED BY ${s}.events.id`,
      `CREATE INDEX events_by_issue ON ${s}.events (issue_id, timestamp DESC, id DESC)`,
      // Finding an event by id (API lookups); uniqueness is event_ids' job.
      `CREATE INDEX events_by_event_id ON ${s}.events (project_id, event_id)`,
      `CREATE TABLE ${s}.events_default PARTITION OF ${s}.events DEFAULT`,
      // A weekly partition (Monday 00:00 UTC) for every week holding rows and for this week and a few
      // ahead; rows further in the future (a wrong clock) stay in DEFAULT rather than create years of empty weeks.
      `DO $$
      DECLARE
        week timestamptz;
      BEGIN
        FOR week IN
          SELECT DISTINCT date_trunc('week', received AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM ${s}.events_unpartitioned
            WHERE received < now() + interval '${PARTITIONS_AHEAD_WEEKS + 1} weeks'
          UNION
          SELECT date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + n * interval '1 week' FROM generate_series(0, ${PARTITIONS_AHEAD_WEEKS}) n
        LOOP
          EXECUTE format('CREATE TABLE ${s}.%I PARTITION OF ${s}.events FOR VALUES FROM (%L) TO (%L)',
            'events_p' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD'), week, week + interval '1 week');
        END LOOP;
      END $$`,
      `INSERT INTO ${s}.events SELECT * FROM ${s}.events_unpartitioned`,
      `SELECT setval('${s}.events_row_id_seq', coalesce(max(id), 0) + 1, false) FROM ${s}.events_unpartitioned`,
      // What ingest deduplicates on (ON CONFLICT), kept as long as the event is: exact, as before.
      `CREATE TABLE ${s}.event_ids (
        project_id integer NOT NULL,
        event_id text NOT NULL,
        received timestamptz NOT NULL,
        PRIMARY KEY (project_id, event_id)
      )`,
      `CREATE INDEX event_ids_by_received ON ${s}.event_ids (received)`,
      `INSERT INTO ${s}.event_ids (project_id, event_id, received) SELECT project_id, event_id, received FROM ${s}.events_unpartitioned`,
      `DROP TABLE ${s}.events_unpartitioned`,
    ],
  },
];

/**
 * The event store's own migrations, tracked in `faultline_migration_event_store` (new tables go
 * here, ARCHITECTURE.md, "Tables and migrations").
 */
export const eventStoreOwnMigrations: readonly SchemaMigration[] = [
  /** A project's grouping rules (docs/grouping.md), Sentry's text syntax as saved; no row: none. */
  {
    name: "0001_project_grouping_rules",
    statements: (s) => [
      `CREATE TABLE ${s}.project_grouping_rules (
        project_id integer PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        fingerprinting_rules text NOT NULL DEFAULT '',
        grouping_enhancements text NOT NULL DEFAULT ''
      )`,
    ],
  },
];
