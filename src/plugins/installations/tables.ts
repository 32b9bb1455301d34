// The installations plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Int8Id, Timestamp } from "../../db/schema.js";

export interface AppRequestLogTable {
  id: Int8Id;
  app_id: number;
  organization_id: number;
  delivery_id: string;
  attempt: number;
  event_type: string;
  webhook_url: string;
  response_code: number;
  is_error: boolean;
  request_body: string;
  response_body: string;
  date_created: Timestamp;
}

declare module "../../db/schema.js" {
  /** The installations plugin's tables. */
  interface Database {
    app_request_log: AppRequestLogTable;
  }
}
