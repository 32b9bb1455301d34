import { sql, type Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";

/** lock_timeout expired. */
const LOCK_NOT_AVAILABLE = "55P03";

/**
 * Takes this schema's retention lock for the transaction, or returns false at once when another
 * instance holds it: retention and partition upkeep run in one instance at a time, other schemas
 * on the database are not blocked. Also sets a 5 s `lock_timeout`: attaching and dropping
 * partitions need strong locks (on DEFAULT, on `events`), and a request waiting behind a long
 * reader would queue ingest and reads behind itself; each step gives up instead (see
 * {@link unlessLockBusy}) and is left to the next run.
 */
export async function takeRetentionLock(trx: Transaction<Database>, schema: string): Promise<boolean> {
  const { rows } = await sql<{
    locked: boolean;
  }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`faultline.retention:${schema}`}, 0)) AS locked`.execute(trx);
  if (!rows[0]?.locked) return false;
  await sql`SET LOCAL lock_timeout = '5s'`.execute(trx);
  return true;
}

/**
 * Runs `work` in a savepoint; if a lock it needs stays busy past `lock_timeout`, undoes it and
 * resolves to null (the transaction goes on), else to what `work` returned.
 */
export async function unlessLockBusy<T>(trx: Transaction<Database>, work: () => Promise<T>): Promise<T | null> {
  await sql`SAVEPOINT retention_step`.execute(trx);
  try {
    const result = await work();
    await sql`RELEASE SAVEPOINT retention_step`.execute(trx);
    return result;
  } catch (error) {
    if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
    await sql`ROLLBACK TO SAVEPOINT retention_step`.execute(trx);
    return null;
  }
}
