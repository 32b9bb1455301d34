// The notifications plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Generated } from "kysely";
import type { Int8, Int8Id, Json, Timestamp } from "../../db/schema.js";
import type { Notification, NotificationCategory } from "./notifier.js";

/** One on/off choice: a user's (or, with no user, the organization's default), for all projects or one. */
export interface NotificationSettingsTable {
  id: Generated<number>;
  organization_id: number;
  /** Null: the organization's default for its members. */
  user_id: number | null;
  /** Null: every project. */
  project_id: number | null;
  category: NotificationCategory;
  channel: string;
  enabled: boolean;
  date_updated: Timestamp;
}

/** The key that signs unsubscribe links: made once per database, shared by every instance on it. */
export interface NotificationKeysTable {
  id: number;
  secret: string;
}

/** When a user was last told about an issue on a channel (the throttle). */
export interface NotificationThrottleTable {
  user_id: number;
  issue_id: Int8;
  channel: string;
  last_sent_at: Timestamp;
}

/** A notification the throttle held back, waiting for the user's next digest. */
export interface NotificationDigestItemsTable {
  id: Int8Id;
  organization_id: number;
  user_id: number;
  channel: string;
  category: NotificationCategory;
  notification: Json<Notification>;
  date_created: Timestamp;
}

declare module "../../db/schema.js" {
  /** The notifications plugin's tables. */
  interface Database {
    notification_settings: NotificationSettingsTable;
    notification_keys: NotificationKeysTable;
    notification_throttle: NotificationThrottleTable;
    notification_digest_items: NotificationDigestItemsTable;
  }
}
