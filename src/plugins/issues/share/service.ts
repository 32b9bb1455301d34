import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";

/** A shared issue with what its page names: its project and organization. */
export interface SharedIssueRow extends Issue {
  project_slug: string;
  project_name: string;
  organization_slug: string;
  organization_name: string;
}

/** Share ids are `randomHex(16)`: 128 random bits, the only credential of the unauthenticated page. */
const SHARE_ID = /^[0-9a-f]{32}$/;

/**
 * The public issue a share id names (docs/issues.md, "Public sharing"), read afresh each time (no
 * cache: making the issue private, or deleting it, takes effect at once). Anything that is not a
 * well-formed share id is answered without a query; a well-formed one costs one probe of the
 * unique `issues_share_id` index, found or not.
 */
export async function findSharedIssue(db: Kysely<Database>, shareId: string): Promise<SharedIssueRow | undefined> {
  if (!SHARE_ID.test(shareId)) return undefined;
  return db
    .selectFrom("issues as i")
    .innerJoin("projects as p", "p.id", "i.project_id")
    .innerJoin("organizations as o", "o.id", "i.organization_id")
    .selectAll("i")
    .select([
      "p.slug as project_slug",
      "p.name as project_name",
      "o.slug as organization_slug",
      "o.name as organization_name",
    ])
    .where("i.share_id", "=", shareId)
    .where("i.is_public", "=", true)
    .where("i.deleted_at", "is", null)
    .executeTakeFirst();
}
