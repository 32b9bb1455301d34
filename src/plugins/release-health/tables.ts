// The release-health plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts). docs/release-health.md, "Storage".
import type { Int8, Timestamp } from "../../db/schema.js";

/**
 * Session counters per project, release, environment ('' for none) and hour of the sessions'
 * start. `sessions` counts `init` updates and the totals of `sessions` aggregates; `errored`,
 * `abnormal` and `crashed` come from aggregates only (they are one per session already).
 */
export interface ReleaseHealthBucketsTable {
  project_id: number;
  organization_id: number;
  release: string;
  environment: string;
  bucket: Timestamp;
  sessions: Int8;
  errored: Int8;
  abnormal: Int8;
  crashed: Int8;
}

/** Individual sessions that errored, ended abnormally or crashed: one row per session, its worst status. */
export interface ReleaseHealthUnhealthySessionsTable {
  project_id: number;
  release: string;
  environment: string;
  bucket: Timestamp;
  /** The first 8 bytes of the SHA-256 of the session id. */
  session_hash: Int8;
  /** 1 errored, 2 abnormal, 3 crashed: a session keeps the greatest it reported. */
  status: number;
}

/** The distinct users (`did`) of each bucket, and whether any of their sessions there crashed. */
export interface ReleaseHealthUsersTable {
  project_id: number;
  release: string;
  environment: string;
  bucket: Timestamp;
  /** The first 8 bytes of the SHA-256 of the `did`: the id itself is not kept. */
  user_hash: Int8;
  crashed: boolean;
}

declare module "../../db/schema.js" {
  /** The release-health plugin's tables. */
  interface Database {
    release_health_buckets: ReleaseHealthBucketsTable;
    release_health_unhealthy_sessions: ReleaseHealthUnhealthySessionsTable;
    release_health_users: ReleaseHealthUsersTable;
  }
}
