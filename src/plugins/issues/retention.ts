import { type RawBuilder, sql, type Transaction } from "kysely";
import { tableIn } from "../../db/identifiers.js";
import { projectRetentionCutoff } from "../../db/retention-cutoff.js";
import type { Database } from "../../db/schema.js";
import type { IssueRetention, IssueRetentionReport } from "../event-store/index.js";

/** Counter rows deleted per statement in one slice. */
const ROW_BATCH = 10_000;
/** Issues marked expired per slice (the `issues.purge` task removes their rows afterwards). */
const ISSUE_BATCH = 1000;

/**
 * The issues' part of a retention slice (the event store's retention runs it, docs/storage.md):
 * issues left without events whose last sighting is past their project's retention are hidden
 * (`deleted_at`) and their fingerprints released, so the purge task deletes them with their
 * comments, activity, links and counters, as Sentry's cleanup does; hourly and daily counters past
 * retention go too. (Queued events the digest gave up on are the ingest plugin's to delete.)
 */
export const issueRetention: IssueRetention = {
  async expire(trx, { schema, defaultDays, now }): Promise<IssueRetentionReport> {
    const table = tableIn(schema);
    const cutoff = projectRetentionCutoff(defaultDays, now);
    const issuesExpired = await expireIssues(trx, table, cutoff, now);
    const statsDeleted = await deleteStats(trx, table, cutoff);
    const more = statsDeleted >= ROW_BATCH || issuesExpired === ISSUE_BATCH;
    return { issuesExpired, statsDeleted, more };
  },
};

type TableIn = ReturnType<typeof tableIn>;

async function expireIssues(
  trx: Transaction<Database>,
  table: TableIn,
  cutoff: RawBuilder<Date>,
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    UPDATE ${table("issues")} SET deleted_at = ${now} WHERE id IN (
      SELECT i.id FROM ${table("issues")} i JOIN ${table("projects")} p ON p.id = i.project_id
      WHERE i.deleted_at IS NULL AND i.last_seen < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM ${table("events")} e WHERE e.issue_id = i.id)
      ORDER BY i.id LIMIT ${ISSUE_BATCH} FOR UPDATE OF i SKIP LOCKED
    ) RETURNING id`.execute(trx);
  if (rows.length === 0) return 0;
  // A new event with the same fingerprint opens a new issue, as after a deletion.
  await trx
    .deleteFrom("issue_hashes")
    .where(
      "issue_id",
      "in",
      rows.map((row) => Number(row.id)),
    )
    .execute();
  return rows.length;
}

async function deleteStats(trx: Transaction<Database>, table: TableIn, cutoff: RawBuilder<Date>): Promise<number> {
  let deleted = 0;
  for (const stats of ["issue_stats_hourly", "issue_stats_daily"]) {
    const result = await sql`
      DELETE FROM ${table(stats)} WHERE (issue_id, bucket) IN (
        SELECT s.issue_id, s.bucket FROM ${table(stats)} s JOIN ${table("issues")} i ON i.id = s.issue_id JOIN ${table("projects")} p ON p.id = i.project_id
        WHERE s.bucket < ${cutoff} LIMIT ${ROW_BATCH})`.execute(trx);
    deleted += Number(result.numAffectedRows ?? 0);
  }
  return deleted;
}
