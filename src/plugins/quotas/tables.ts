// The quotas plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Timestamp } from "../../db/schema.js";

/** An organization's event budgets, set by the host (by plan, say); an organization without a row is unlimited. */
export interface OrganizationQuotasTable {
  organization_id: number;
  events_per_hour: number | null;
  events_per_month: number | null;
  /** Spike protection: refuse past this multiple of the recent hourly average (null: off). */
  spike_multiple: number | null;
  /** Spike protection never refuses below this many events in an hour. */
  spike_minimum_per_hour: number | null;
  /** The last throttling episode announced (`<period>:<window start>`): announced once, by whichever instance is first. */
  throttled_episode: string | null;
  date_updated: Timestamp;
}

/**
 * Events taken per organization and budget window, shared by every instance on the schema.
 * `used` counts what instances leased, which may pass the limit (see src/rate-limit).
 */
export interface OrganizationQuotaWindowsTable {
  organization_id: number;
  period: "hour" | "month";
  window_start: Timestamp;
  used: number;
}

declare module "../../db/schema.js" {
  /** The quotas plugin's tables. */
  interface Database {
    organization_quotas: OrganizationQuotasTable;
    organization_quota_windows: OrganizationQuotaWindowsTable;
  }
}
