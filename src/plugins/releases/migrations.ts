import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The releases plugin's own tables (tracked in its own migration table). The per-project
 * `releases` rows ingest writes stay in the core; these add what Sentry's releases carry at the
 * organization level, deploys, and uploaded artifacts.
 */
export const releasesMigrations: readonly SchemaMigration[] = [
  {
    name: "0001_releases",
    statements: (s) => [
      `CREATE TABLE ${s}.release_details (
        id integer GENERATED ALWAYS AS IDENTITY UNIQUE,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        version text NOT NULL,
        ref text,
        url text,
        date_released timestamptz,
        commits jsonb NOT NULL DEFAULT '[]',
        date_created timestamptz NOT NULL,
        PRIMARY KEY (organization_id, version)
      )`,
      `CREATE TABLE ${s}.release_deploys (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        version text NOT NULL,
        environment text NOT NULL,
        name text,
        url text,
        date_started timestamptz,
        date_finished timestamptz NOT NULL
      )`,
      `CREATE INDEX release_deploys_version ON ${s}.release_deploys (organization_id, version, date_finished DESC)`,
      // Content-addressed: one row per (organization, sha1), whoever uploads it again.
      `CREATE TABLE ${s}.artifact_blobs (
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        checksum text NOT NULL,
        size integer NOT NULL,
        data bytea NOT NULL,
        date_created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, checksum)
      )`,
      `CREATE TABLE ${s}.artifact_bundles (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        checksum text NOT NULL,
        release text,
        dist text,
        project_ids integer[] NOT NULL,
        state text NOT NULL,
        detail text,
        file_count integer NOT NULL DEFAULT 0,
        date_created timestamptz NOT NULL,
        UNIQUE (organization_id, checksum)
      )`,
      `CREATE TABLE ${s}.artifact_files (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id integer NOT NULL,
        bundle_id integer NOT NULL REFERENCES ${s}.artifact_bundles (id) ON DELETE CASCADE,
        url text NOT NULL,
        type text NOT NULL,
        debug_id uuid,
        sourcemap text,
        blob_checksum text NOT NULL,
        size integer NOT NULL
      )`,
      `CREATE INDEX artifact_files_debug_id ON ${s}.artifact_files (organization_id, debug_id, type) WHERE debug_id IS NOT NULL`,
      `CREATE INDEX artifact_files_url ON ${s}.artifact_files (organization_id, url)`,
    ],
  },
  {
    // Unpacked files are stored in pieces of at most 1 MiB (artifacts/pieces.ts) instead of one
    // blob each: a file's size no longer decides how much memory storing or reading it takes.
    // Files stored before this keep their single blob and are read as before.
    name: "0002_artifact_blob_pieces",
    statements: (s) => [
      `CREATE TABLE ${s}.artifact_blob_pieces (
        organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
        checksum text NOT NULL,
        size bigint NOT NULL,
        pieces text[] NOT NULL,
        PRIMARY KEY (organization_id, checksum)
      )`,
      // Large bundles are polled while they assemble: when the attempt started, to take over one a crash left behind.
      `ALTER TABLE ${s}.artifact_bundles ADD COLUMN date_started timestamptz`,
    ],
  },
];
