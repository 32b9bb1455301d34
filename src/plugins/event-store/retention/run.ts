import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import { tableIn } from "../../../db/identifiers.js";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import type { IssueRetention } from "../tokens.js";
import { takeRetentionLock, unlessLockBusy } from "./locks.js";
import { ensurePartitions, listPartitions } from "./partitions.js";

const DAY = 86_400_000;
/** Rows deleted per statement in one slice (events of shorter-retention projects, stats, locators). */
const ROW_BATCH = 10_000;

/** What one retention slice did. `ran` is false when another instance held the lock. */
export interface RetentionReport {
  ran: boolean;
  partitionsCreated: string[];
  partitionsDropped: string[];
  /** Events deleted row by row: projects whose retention is shorter than the longest, and the DEFAULT partition. */
  eventsDeleted: number;
  /** Issues whose last event expired, hidden now and purged with their rows by `issues.purge`. */
  issuesExpired: number;
  statsDeleted: number;
  /** A batch was full: run again for the rest. */
  more: boolean;
}

export interface RetentionSettings {
  schema: string;
  /** The issues' part of each slice (the issues plugin's port). */
  issues: IssueRetention;
  /** Days events are kept for projects without an override. */
  defaultDays: number;
  now: Date;
}

/**
 * One slice of retention, in one transaction under `pg_try_advisory_xact_lock` (another instance
 * running it → returns `ran: false` at once). Expiry is by partition wherever it can be: weekly
 * partitions wholly older than the longest retention in force are dropped (their `event_ids`
 * first, in batches). Projects with a shorter retention lose their older events row by row, as do
 * rows stranded in the DEFAULT partition; then the issues' part runs ({@link IssueRetention}:
 * issues left without events hidden, counters past retention deleted).
 */
export function runRetention(db: Kysely<Database>, settings: RetentionSettings): Promise<RetentionReport> {
  return runInTransaction(db, async ({ trx }) => {
    const report: RetentionReport = {
      ran: false,
      partitionsCreated: [],
      partitionsDropped: [],
      eventsDeleted: 0,
      issuesExpired: 0,
      statsDeleted: 0,
      more: false,
    };
    if (!(await takeRetentionLock(trx, settings.schema))) return report;
    report.ran = true;
    const { now, defaultDays, schema } = settings;
    const longest = await longestRetentionDays(trx, defaultDays);
    const oldestKept = new Date(now.getTime() - longest * DAY);
    report.partitionsCreated = await ensurePartitions(trx, schema, now, oldestKept);
    const cutoffs = await projectCutoffs(trx, settings);
    const shorter = cutoffs.filter((c) => c.before > oldestKept);

    const table = tableIn(schema);
    for (const { projectIds, before } of shorter)
      report.eventsDeleted += await deleteEvents(
        trx,
        schema,
        sql`project_id = ANY(${projectIds}) AND received < ${before}`,
      );
    // DEFAULT holds rows outside every weekly range: expired ones are deleted there.
    report.eventsDeleted += await deleteEvents(trx, schema, sql`received < ${oldestKept}`, ROW_BATCH, "events_default");
    const issues = await settings.issues.expire(trx, { schema, defaultDays, now });
    report.issuesExpired = issues.issuesExpired;
    report.statsDeleted = issues.statsDeleted;
    const droppable = (await listPartitions(trx, schema)).filter((p) => p.to <= oldestKept);
    let locatorsLeft = false;
    for (const partition of droppable) {
      // The partition's event ids go in the same savepoint as the partition: both, or neither.
      const dropped = await unlessLockBusy(trx, async () => {
        const locators = await sql`
        DELETE FROM ${table("event_ids")} WHERE (project_id, event_id) IN (
          SELECT project_id, event_id FROM ${table("event_ids")} WHERE received >= ${partition.from} AND received < ${partition.to} LIMIT ${ROW_BATCH})`.execute(
          trx,
        );
        if (Number(locators.numAffectedRows ?? 0) === ROW_BATCH) return false;
        await sql`DROP TABLE ${table(partition.name)}`.execute(trx);
        return true;
      });
      if (!dropped) {
        locatorsLeft = dropped === false;
        break;
      }
      report.partitionsDropped.push(partition.name);
    }
    // Issues left without events are found by the next slice, once the drop is committed (and its lock released).
    report.more =
      locatorsLeft || report.partitionsDropped.length > 0 || report.eventsDeleted >= ROW_BATCH || issues.more;
    return report;
  });
}

/**
 * Only the partition upkeep of {@link runRetention}, under the same lock: run more often than
 * retention so a fresh week's partition (or one for rows a long-stopped worker left in DEFAULT)
 * exists soon after startup. Returns the partitions created, or null when another instance held the lock.
 */
export function maintainPartitions(db: Kysely<Database>, settings: RetentionSettings): Promise<string[] | null> {
  return runInTransaction(db, async ({ trx }) => {
    if (!(await takeRetentionLock(trx, settings.schema))) return null;
    const longest = await longestRetentionDays(trx, settings.defaultDays);
    return ensurePartitions(trx, settings.schema, settings.now, new Date(settings.now.getTime() - longest * DAY));
  });
}

async function longestRetentionDays(trx: Transaction<Database>, defaultDays: number): Promise<number> {
  const row = await trx
    .selectFrom("projects")
    .select((eb) => eb.fn.max("retention_days").as("days"))
    .executeTakeFirst();
  return Math.max(defaultDays, Number(row?.days ?? 0));
}

/** Projects grouped by the instant before which their events expire. */
async function projectCutoffs(trx: Transaction<Database>, { defaultDays, now }: RetentionSettings) {
  const rows = await trx.selectFrom("projects").select(["id", "retention_days"]).execute();
  const groups = new Map<number, number[]>();
  for (const row of rows) {
    const days = row.retention_days ?? defaultDays;
    groups.set(days, [...(groups.get(days) ?? []), row.id]);
  }
  return [...groups].map(([days, projectIds]) => ({ projectIds, before: new Date(now.getTime() - days * DAY) }));
}

/**
 * Deletes up to `limit` events matching `where` (from `events`, or one partition of it), with their
 * event_ids so their ids can be sent again.
 */
export async function deleteEvents(
  trx: Transaction<Database>,
  schema: string,
  where: RawBuilder<unknown>,
  limit = ROW_BATCH,
  from = "events",
): Promise<number> {
  const table = tableIn(schema);
  const { rows } = await sql<{ n: number }>`
    WITH gone AS (
      DELETE FROM ${table(from)} WHERE (id, received) IN (SELECT id, received FROM ${table(from)} WHERE ${where} LIMIT ${limit})
      RETURNING project_id, event_id
    ), locators AS (
      DELETE FROM ${table("event_ids")} i USING gone g WHERE i.project_id = g.project_id AND i.event_id = g.event_id
    )
    SELECT count(*)::integer AS n FROM gone`.execute(trx);
  return rows[0]?.n ?? 0;
}
