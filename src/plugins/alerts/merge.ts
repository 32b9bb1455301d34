import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import type { IssueMergeParticipant } from "../issues/index.js";

type Trx = Transaction<Database>;

/**
 * The alerts' rows in issue merges and unmerges. Per-minute counters (what `event_frequency`
 * conditions read): a merge sums the children's into the parent, so the merged issue's
 * frequency is that of all its events; an unmerge recounts both issues' minutes from their stored
 * events (a trigger fills them at insert, which moving events does not run). Rule firings: the
 * parent keeps each rule's latest firing, so a rule that just fired for a child does not fire
 * again at once for the same problem; the split-off issue starts with none.
 */
export const alertsMergeParticipant: IssueMergeParticipant = {
  id: "alerts",
  async merge(trx, { parentId, childIds }) {
    const children = [...childIds];
    await trx
      .insertInto("issue_stats_minutely")
      .columns(["issue_id", "environment", "bucket", "count"])
      .expression(
        trx
          .selectFrom("issue_stats_minutely")
          .select([
            sql<number>`${parentId}::bigint`.as("issue_id"),
            "environment",
            "bucket",
            sql<number>`sum(count)::integer`.as("count"),
          ])
          .where("issue_id", "in", children)
          .groupBy(["environment", "bucket"]),
      )
      .onConflict((oc) =>
        oc
          .columns(["issue_id", "bucket", "environment"])
          .doUpdateSet({ count: sql`issue_stats_minutely.count + excluded.count` }),
      )
      .execute();
    await trx.deleteFrom("issue_stats_minutely").where("issue_id", "in", children).execute();
    await trx
      .insertInto("issue_alert_fires")
      .columns(["rule_id", "issue_id", "last_fired_at"])
      .expression(
        trx
          .selectFrom("issue_alert_fires")
          .select(["rule_id", sql<number>`${parentId}::bigint`.as("issue_id"), sql<Date>`max(last_fired_at)`.as("t")])
          .where("issue_id", "in", children)
          .groupBy("rule_id"),
      )
      .onConflict((oc) =>
        oc.columns(["rule_id", "issue_id"]).doUpdateSet({
          last_fired_at: sql`greatest(issue_alert_fires.last_fired_at, excluded.last_fired_at)`,
        }),
      )
      .execute();
    await trx.deleteFrom("issue_alert_fires").where("issue_id", "in", children).execute();
  },
  async unmerge(trx, { sourceId, newIssueId }) {
    await recountMinutes(trx, sourceId, newIssueId);
  },
};

/** Recounts the source's kept minutes (from its oldest one on) for both issues, from the stored events. */
async function recountMinutes(trx: Trx, sourceId: number, newIssueId: number): Promise<void> {
  const oldest = await trx
    .selectFrom("issue_stats_minutely")
    .select(sql<Date | null>`min(bucket)`.as("bucket"))
    .where("issue_id", "=", sourceId)
    .executeTakeFirst();
  if (!oldest?.bucket) return;
  const since = new Date(oldest.bucket);
  await trx.deleteFrom("issue_stats_minutely").where("issue_id", "=", sourceId).execute();
  await trx
    .insertInto("issue_stats_minutely")
    .columns(["issue_id", "environment", "bucket", "count"])
    .expression(
      trx
        .selectFrom("events")
        .select([
          "issue_id",
          sql<string>`coalesce(environment, '')`.as("environment"),
          sql<Date>`to_timestamp(floor(extract(epoch FROM "timestamp") / 60) * 60)`.as("bucket"),
          sql<number>`count(*)::integer`.as("count"),
        ])
        .where("issue_id", "in", [sourceId, newIssueId])
        .where("timestamp", ">=", since)
        .groupBy(sql`1, 2, 3`),
    )
    .execute();
}
