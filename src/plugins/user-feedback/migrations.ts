import type { SchemaMigration } from "../../db/migrations/types.js";

/** The user-feedback plugin's own tables (tracked in `faultline_migration_user_feedback`). */
export const userFeedbackMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_user_feedback",
    statements: (s) => [
      `CREATE TABLE ${s}.user_feedback (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('feedback', 'user_report')),
        feedback_event_id text,
        event_id text,
        issue_id bigint,
        name text NOT NULL,
        email text NOT NULL,
        comments text NOT NULL,
        url text,
        source text,
        environment text,
        release text,
        "user" jsonb,
        date_created timestamptz NOT NULL
      )`,
      // The legacy report is one per event (Sentry's rule): a second one within minutes replaces it.
      `CREATE UNIQUE INDEX user_feedback_report_per_event ON ${s}.user_feedback (project_id, event_id)
        WHERE kind = 'user_report'`,
      // An SDK sending the same feedback again (a retry) is kept once.
      `CREATE UNIQUE INDEX user_feedback_feedback_event ON ${s}.user_feedback (project_id, feedback_event_id)
        WHERE feedback_event_id IS NOT NULL`,
      `CREATE INDEX user_feedback_listing ON ${s}.user_feedback (project_id, date_created DESC, id DESC)`,
      `CREATE INDEX user_feedback_by_issue ON ${s}.user_feedback (issue_id, date_created DESC, id DESC)
        WHERE issue_id IS NOT NULL`,
      // What the linking task walks: reports naming an event whose issue is not known yet.
      `CREATE INDEX user_feedback_unlinked ON ${s}.user_feedback (date_created DESC)
        WHERE issue_id IS NULL AND event_id IS NOT NULL`,
      `CREATE TABLE ${s}.user_feedback_attachments (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        feedback_id bigint NOT NULL REFERENCES ${s}.user_feedback (id) ON DELETE CASCADE,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        name text NOT NULL,
        content_type text NOT NULL,
        size integer NOT NULL,
        data bytea NOT NULL,
        date_created timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX user_feedback_attachments_by_feedback ON ${s}.user_feedback_attachments (feedback_id)`,
    ],
  },
];
