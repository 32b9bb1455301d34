// The external-issues plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { ColumnType, Generated } from "kysely";
import type { Int8, Timestamp } from "../../db/schema.js";

export interface ExternalIssuesTable {
  id: Generated<number>;
  organization_id: number;
  installation_id: number;
  issue_id: Int8;
  web_url: string;
  identifier: string;
  date_created: Timestamp;
  /** The external tracker's project (`project` of the link body); null for links from before it was kept. */
  project: ColumnType<string | null, string | null | undefined, string | null>;
}

declare module "../../db/schema.js" {
  /** The external-issues plugin's tables. */
  interface Database {
    external_issues: ExternalIssuesTable;
  }
}
