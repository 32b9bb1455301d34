import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.js";

/**
 * One unit of work: the transaction to write with, and callbacks to run once it has committed
 * (waking the delivery worker, for instance). Domain-event subscribers receive it, so what they
 * write commits or rolls back together with the change that caused it.
 */
export interface TransactionScope {
  trx: Transaction<Database>;
  afterCommit(callback: () => void): void;
}

/** Runs `work` in a transaction; after-commit callbacks run only when it committed. */
export async function runInTransaction<T>(
  db: Kysely<Database>,
  work: (scope: TransactionScope) => Promise<T>,
): Promise<T> {
  const callbacks: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => work({ trx, afterCommit: (cb) => void callbacks.push(cb) }));
  for (const callback of callbacks) callback();
  return result;
}
