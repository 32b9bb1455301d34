import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { SearchTerm } from "./ast.js";
import { searchError } from "./errors.js";
import { searchKey } from "./keys.js";

/**
 * A key that is neither built in (keys.ts) nor `tags[…]` is a tag some event of the organization
 * must have carried (`issue_tag_keys`): otherwise it is a typo or a Sentry key Faultline lacks, and
 * the search answers 400 naming it instead of an empty list that looks like "no such issues".
 */
export async function assertKnownKeys(
  db: Kysely<Database>,
  organizationId: number,
  terms: readonly SearchTerm[],
): Promise<void> {
  const asked = new Set<string>();
  for (const term of terms) {
    if (term.type === "tag" && !term.known) asked.add(term.key);
    if (term.type === "has") for (const key of term.keys) if (!searchKey(key)) asked.add(key);
  }
  if (asked.size === 0) return;
  const found = await db
    .selectFrom("issue_tag_keys")
    .select("key")
    .where("organization_id", "=", organizationId)
    .where("key", "in", [...asked])
    .execute();
  const unknown = [...asked].filter((key) => !found.some((row) => row.key === key));
  if (unknown.length > 0)
    throw searchError(
      `unknown search key${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => `"${key}"`).join(", ")}: ` +
        "not a built-in key and no event of this organization has such a tag (docs/search.md; tags[key]:value searches a tag anyway)",
    );
}
