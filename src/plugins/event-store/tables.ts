// The event store's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Selectable } from "kysely";
import type { Int8, Int8Id, Json, Timestamp } from "../../db/schema.js";

export interface EventsTable {
  id: Int8Id;
  organization_id: number;
  project_id: number;
  issue_id: Int8;
  event_id: string;
  timestamp: Timestamp;
  received: Timestamp;
  level: string;
  platform: string | null;
  environment: string | null;
  release: string | null;
  dist: string | null;
  type: "error" | "default";
  title: string;
  culprit: string;
  message: string;
  location: string | null;
  user_key: string | null;
  tags: Json<Array<[string, string]>>;
  hashes: string[];
  size: number;
  payload: Json<Record<string, unknown>>;
}

/** Event ids stored per project (0009_retention): what ingest deduplicates on, kept as long as the event. */
export interface EventIdsTable {
  project_id: number;
  event_id: string;
  received: Timestamp;
}

/** A project's grouping rules as saved (0001_project_grouping_rules, docs/grouping.md); no row: none. */
export interface ProjectGroupingRulesTable {
  project_id: number;
  fingerprinting_rules: string;
  grouping_enhancements: string;
}

/** A stored event, as the event store's reads return it. */
export type StoredEvent = Selectable<EventsTable>;

declare module "../../db/schema.js" {
  /** The event store's tables. */
  interface Database {
    events: EventsTable;
    event_ids: EventIdsTable;
    project_grouping_rules: ProjectGroupingRulesTable;
  }
}
