// The inbound-filters plugin's table: its Kysely type, merged into the core's `Database` (the
// migration creating it is in migrations.ts).
import type { Timestamp } from "../../db/schema.js";

/** A project's inbound filters; a project without a row filters nothing. */
export interface InboundFiltersTable {
  project_id: number;
  browser_extensions: boolean;
  localhost: boolean;
  web_crawlers: boolean;
  /** The legacy-browsers subfilters turned on. */
  legacy_browsers: string[];
  /** Sentry's glob patterns (`filters:error_messages`). */
  error_messages: string[];
  /** Sentry's glob patterns (`filters:releases`). */
  releases: string[];
  date_updated: Timestamp;
}

declare module "../../db/schema.js" {
  /** The inbound-filters plugin's table. */
  interface Database {
    inbound_filters: InboundFiltersTable;
  }
}
