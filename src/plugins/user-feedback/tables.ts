// The user-feedback plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Generated } from "kysely";
import type { Int8, Int8Id, Json, Timestamp } from "../../db/schema.js";

/** How a report arrived: the SDKs' `feedback` item (widget, `captureFeedback`), or the legacy user report. */
export type FeedbackKind = "feedback" | "user_report";

export interface UserFeedbackTable {
  id: Int8Id;
  organization_id: number;
  project_id: number;
  kind: FeedbackKind;
  /** The `feedback` item's own event id (an SDK's retry is dropped on it); null for user reports. */
  feedback_event_id: string | null;
  /** The error event the report is about (`event_id`, `associated_event_id`); null when it names none. */
  event_id: string | null;
  /** The event's issue, once the event is stored (docs/user-feedback.md, "Linking"). */
  issue_id: Int8 | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  /** The widget's `contexts.feedback.source` (`widget`, `api`…). */
  source: string | null;
  environment: string | null;
  release: string | null;
  /** The event's `user` as the SDK sent it (feedback items), else null. */
  user: Json<Record<string, unknown>> | null;
  date_created: Timestamp;
}

export interface UserFeedbackAttachmentsTable {
  id: Int8Id;
  feedback_id: Int8;
  organization_id: number;
  name: string;
  content_type: string;
  size: number;
  data: Uint8Array;
  date_created: Generated<Date>;
}

declare module "../../db/schema.js" {
  /** The user-feedback plugin's tables. */
  interface Database {
    user_feedback: UserFeedbackTable;
    user_feedback_attachments: UserFeedbackAttachmentsTable;
  }
}
