import type { Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";

/** A merge: the children's rows go to the parent; the children are deleted afterwards. */
export interface IssueMergeChange {
  organizationId: number;
  parentId: number;
  childIds: readonly number[];
}

/** An unmerge: the events of `hashes` left `sourceId` for the new issue `newIssueId`. */
export interface IssueUnmergeChange {
  organizationId: number;
  sourceId: number;
  newIssueId: number;
  hashes: readonly string[];
}

/**
 * A plugin that keeps rows keyed by issue id in its own tables takes part in merges and unmerges
 * through this contract, registered under `IssueMergeParticipantToken` (several may be): the
 * issues plugin calls each inside the merge's (or unmerge's) transaction, after it moved its own
 * rows and the events, so a participant may read the events' new issue. A participant that
 * throws rolls the whole change back. Each decides per table whether to move, combine or drop.
 */
export interface IssueMergeParticipant {
  /** Names the participant in errors. */
  readonly id: string;
  merge(trx: Transaction<Database>, change: IssueMergeChange): Promise<void>;
  /** Omitted: nothing of the participant's follows the split-off events. */
  unmerge?(trx: Transaction<Database>, change: IssueUnmergeChange): Promise<void>;
}
