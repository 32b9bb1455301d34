// The ingest plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Generated } from "kysely";
import type { Timestamp } from "../../db/schema.js";

/** Accepted events waiting for the digest stage (0008_ingest_queue); `event` is the normalised event as JSON. */
export interface IngestQueueTable {
  id: Generated<string>;
  project_id: number;
  organization_id: number;
  platform: string | null;
  event: string;
  attempts: Generated<number>;
}

/** Events per project, hour and outcome (0011_ingest_outcomes): Sentry's "outcomes", summed. */
export interface IngestOutcomesTable {
  organization_id: number;
  project_id: number;
  hour: Timestamp;
  category: string;
  outcome: string;
  reason: string;
  /** bigint: read back as a string by pg. */
  quantity: string | number;
}

/** The Kysely view of every table Faultline's core owns (all inside the configured schema). */
/**
 * Events taken per DSN key and rate-limit window (0010_rate_limits), shared by every instance on
 * the schema. `used` counts what instances leased, which may pass the limit (see limits/rate-limit.ts).
 */
export interface RateLimitWindowsTable {
  key_id: number;
  window_start: Timestamp;
  used: number;
}

declare module "../../db/schema.js" {
  /** The ingest plugin's tables. */
  interface Database {
    ingest_queue: IngestQueueTable;
    ingest_outcomes: IngestOutcomesTable;
    rate_limit_windows: RateLimitWindowsTable;
  }
}
