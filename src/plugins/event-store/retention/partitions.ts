import { sql, type Transaction } from "kysely";
import { PARTITIONS_AHEAD_WEEKS } from "../migrations.js";
import { quoteIdentifier, tableIn } from "../../../db/identifiers.js";
import type { Database } from "../../../db/schema.js";
import { unlessLockBusy } from "./locks.js";

const DAY = 86_400_000;
export const WEEK = 7 * DAY;
const NAME = /^events_p(\d{4})(\d{2})(\d{2})$/;

/** A weekly partition of `events`: rows with `from <= received < to`. */
export interface EventPartition {
  name: string;
  from: Date;
  to: Date;
}

/** Monday 00:00 UTC of the week holding `date` (1970-01-01 was a Thursday). */
export function weekStart(date: Date): Date {
  const day = Math.floor(date.getTime() / DAY);
  return new Date((day - ((day + 3) % 7)) * DAY);
}

function partitionOf(start: Date): EventPartition {
  const name = `events_p${start.toISOString().slice(0, 10).replaceAll("-", "")}`;
  return { name, from: start, to: new Date(start.getTime() + WEEK) };
}

/** The weekly partitions that exist, oldest first (the DEFAULT partition is not one of them). */
export async function listPartitions(trx: Transaction<Database>, schema: string): Promise<EventPartition[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass(${`${quoteIdentifier(schema)}.events`})`.execute(trx);
  return rows
    .flatMap(({ name }) => {
      const match = NAME.exec(name);
      return match ? [partitionOf(new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`))] : [];
    })
    .sort((a, b) => a.from.getTime() - b.from.getTime());
}

/**
 * Creates the partitions an insert will need: this week's and {@link PARTITIONS_AHEAD_WEEKS} ahead,
 * and a week for any row that landed in the DEFAULT partition (the worker did not run for a while,
 * or the clock jumped), which moves those rows into it. Each is created detached (`LIKE`), filled
 * from DEFAULT, then attached: ATTACH takes a weaker lock on `events` than `CREATE … PARTITION OF`
 * (inserts go on), and a plain CREATE would fail if DEFAULT held rows of its range. The caller
 * holds the retention advisory lock. Returns the names created.
 */
export async function ensurePartitions(
  trx: Transaction<Database>,
  schema: string,
  now: Date,
  oldestKept: Date,
): Promise<string[]> {
  const existing = new Set((await listPartitions(trx, schema)).map((p) => p.name));
  const s = sql.raw(quoteIdentifier(schema));
  const { rows: strays } = await sql<{ week: Date }>`
    SELECT DISTINCT date_trunc('week', received AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS week FROM ${s}.events_default`.execute(
    trx,
  );
  const current = weekStart(now).getTime();
  const wanted = new Set<number>();
  for (let week = 0; week <= PARTITIONS_AHEAD_WEEKS; week++) wanted.add(current + week * WEEK);
  // Rows older than every retention are deleted from DEFAULT instead (see the retention run); rows
  // beyond the weeks kept ahead (a clock far off) stay there rather than create partitions for them.
  const last = current + PARTITIONS_AHEAD_WEEKS * WEEK;
  for (const { week } of strays)
    if (week.getTime() + WEEK > oldestKept.getTime() && week.getTime() <= last) wanted.add(week.getTime());
  const created: string[] = [];
  for (const start of [...wanted].sort((a, b) => a - b)) {
    const partition = partitionOf(new Date(start));
    if (existing.has(partition.name)) continue;
    const table = tableIn(schema)(partition.name);
    const bound = (date: Date) => sql.lit(date.toISOString());
    // ATTACH locks DEFAULT exclusively: behind a long reader of events, leave this week to the next run.
    const attached = await unlessLockBusy(trx, async () => {
      await sql`CREATE TABLE ${table} (LIKE ${s}.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(trx);
      await sql`WITH moved AS (DELETE FROM ${s}.events_default WHERE received >= ${partition.from} AND received < ${partition.to} RETURNING *)
        INSERT INTO ${table} SELECT * FROM moved`.execute(trx);
      await sql`ALTER TABLE ${s}.events ATTACH PARTITION ${table} FOR VALUES FROM (${bound(partition.from)}) TO (${bound(partition.to)})`.execute(
        trx,
      );
      return true;
    });
    if (attached) created.push(partition.name);
  }
  return created;
}
