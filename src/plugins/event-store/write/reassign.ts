import { sql, type Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";

/** Moves every event of `fromIssueIds` to `toIssueId` (an issue merge); returns how many moved. */
export async function moveIssueEvents(
  trx: Transaction<Database>,
  fromIssueIds: readonly number[],
  toIssueId: number,
): Promise<number> {
  if (fromIssueIds.length === 0) return 0;
  const result = await trx
    .updateTable("events")
    .set({ issue_id: toIssueId })
    .where("issue_id", "in", [...fromIssueIds])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Which events of an issue an unmerge moves: see {@link moveHashEvents}. */
export interface HashSplit {
  issueId: number;
  /** Every hash the issue held before the split: what its events were grouped by. */
  issueHashes: readonly string[];
  /** The hashes split off. */
  hashes: readonly string[];
  toIssueId: number;
}

/**
 * Moves the events of an issue grouped by one of the split hashes to the new issue; returns how
 * many moved. An event is grouped by the first of its hashes that the issue holds — the hash
 * ingest's grouping found it by — so an event carrying a split hash after one that stays, stays.
 */
export async function moveHashEvents(trx: Transaction<Database>, split: HashSplit): Promise<number> {
  if (split.hashes.length === 0) return 0;
  const groupedBy = sql`(SELECT u.h FROM unnest(${sql.ref("hashes")}) WITH ORDINALITY AS u(h, n)
    WHERE u.h = ANY(${[...split.issueHashes]}::text[]) ORDER BY u.n LIMIT 1)`;
  const result = await trx
    .updateTable("events")
    .set({ issue_id: split.toIssueId })
    .where("issue_id", "=", split.issueId)
    .where(sql<boolean>`${groupedBy} = ANY(${[...split.hashes]}::text[])`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
