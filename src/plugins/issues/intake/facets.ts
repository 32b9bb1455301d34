import type { Insertable, Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { TransactionScope } from "../../../db/transaction.js";
import type { StoredBatchEvent } from "../../event-store/index.js";

type FacetTable = "issue_environments" | "issue_releases" | "issue_tags" | "issue_search_values" | "issue_tag_keys";

/**
 * Tag keys an instance knows are stored (`organizationId\0key`), so a steady stream of the same
 * tags does not rewrite them each batch. One per instance (IssueIntake): instances in one process
 * may each have their own database. Bounded: forgetting costs one ON CONFLICT DO NOTHING row.
 */
export type KnownTagKeys = Set<string>;
const MAX_KNOWN_TAG_KEYS = 50_000;

/**
 * What issue search filters on (docs/search.md): environments, releases, tags and event fields
 * seen per issue, and every tag key an organization's events carried (what makes `key:value` a
 * known key).
 */
export async function insertFacets(
  scope: TransactionScope,
  fresh: readonly StoredBatchEvent[],
  knownTagKeys: KnownTagKeys,
): Promise<void> {
  const environments = new Map<string, { issue_id: number; environment: string }>();
  const releases = new Map<string, { issue_id: number; release: string }>();
  const tags = new Map<string, { issue_id: number; key: string; value: string }>();
  const values = new Map<string, { issue_id: number; field: string; value: string }>();
  const tagKeys = new Map<string, { organization_id: number; key: string }>();
  for (const { item, issueId } of fresh) {
    const { environment, release } = item.event;
    const organizationId = item.project.organizationId;
    if (environment) environments.set(`${issueId}\0${environment}`, { issue_id: issueId, environment });
    if (release) releases.set(`${issueId}\0${release}`, { issue_id: issueId, release });
    for (const [key, value] of item.event.tags) {
      // The `user` tag is the user key the issue's users already hold: search reads it there.
      if (key !== "user") tags.set(`${issueId}\0${key}\0${value}`, { issue_id: issueId, key, value });
      const known = `${organizationId}\0${key}`;
      if (!knownTagKeys.has(known)) tagKeys.set(known, { organization_id: organizationId, key });
    }
    for (const [field, value] of item.event.searchValues ?? [])
      values.set(`${issueId}\0${field}\0${value}`, { issue_id: issueId, field, value });
  }
  const { trx } = scope;
  await insertIgnoringDuplicates(trx, "issue_environments", [...environments.values()]);
  await insertIgnoringDuplicates(trx, "issue_releases", [...releases.values()]);
  await insertIgnoringDuplicates(trx, "issue_tags", [...tags.values()]);
  await insertIgnoringDuplicates(trx, "issue_search_values", [...values.values()]);
  await insertIgnoringDuplicates(trx, "issue_tag_keys", [...tagKeys.values()]);
  if (tagKeys.size === 0) return;
  // Remembered once committed: a rolled-back batch must not leave a key taken for stored.
  scope.afterCommit(() => {
    if (knownTagKeys.size > MAX_KNOWN_TAG_KEYS) knownTagKeys.clear();
    for (const key of tagKeys.keys()) knownTagKeys.add(key);
  });
}

async function insertIgnoringDuplicates<T extends FacetTable>(
  trx: Transaction<Database>,
  table: T,
  rows: ReadonlyArray<Insertable<Database[T]>>,
): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto(table)
    .values(rows as never)
    .onConflict((oc) => oc.doNothing())
    .execute();
}
