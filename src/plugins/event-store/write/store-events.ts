import type { TransactionScope } from "../../../db/transaction.js";
import type { IssueGrouping, StorableEvent } from "../tokens.js";
import { insertEvents } from "./insert-events.js";

/**
 * Writes one batch of events in the caller's transaction: the issues plugin assigns each event
 * to its issue (creating and locking issues), the events are stored (duplicates by event id
 * dropped), and the issues plugin folds the stored ones into their issues — the statements, and
 * their order, of the write path before the event store had a room of its own.
 */
export async function storeEvents(
  scope: TransactionScope,
  items: readonly StorableEvent[],
  deps: { issues: IssueGrouping; now: Date },
): Promise<void> {
  const batch = await deps.issues.assign(scope.trx, items, deps.now);
  const stored = await insertEvents(scope.trx, items, batch.issueOf);
  await batch.record(scope, stored);
}
