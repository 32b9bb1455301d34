// The service-hooks plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { Generated, Selectable } from "kysely";
import type { Timestamp } from "../../db/schema.js";

export interface ServiceHooksTable {
  /** 32-hex GUID. */
  id: string;
  /** Insertion order: the keyset tie-breaker (the GUID cannot be one). */
  seq: Generated<number>;
  organization_id: number;
  project_id: number;
  url: string;
  events: string[];
  secret: string;
  status: Generated<"active" | "disabled">;
  date_created: Timestamp;
}

export type ServiceHook = Selectable<ServiceHooksTable>;

declare module "../../db/schema.js" {
  /** The service-hooks plugin's tables. */
  interface Database {
    service_hooks: ServiceHooksTable;
  }
}
