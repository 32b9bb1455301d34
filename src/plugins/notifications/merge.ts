import { sql } from "kysely";
import type { IssueMergeParticipant } from "../issues/index.js";

/**
 * The throttle in issue merges: per user and channel, the parent keeps the latest sending of any
 * of the merged issues, so a user just told about a child is not told again at once about the
 * same problem. The split-off issue of an unmerge starts unthrottled. Digest items are
 * notifications already written (their issue inside them) and are left as they are.
 */
export const notificationsMergeParticipant: IssueMergeParticipant = {
  id: "notifications",
  async merge(trx, { parentId, childIds }) {
    const children = [...childIds];
    await trx
      .insertInto("notification_throttle")
      .columns(["user_id", "issue_id", "channel", "last_sent_at"])
      .expression(
        trx
          .selectFrom("notification_throttle")
          .select([
            "user_id",
            sql<number>`${parentId}::bigint`.as("issue_id"),
            "channel",
            sql<Date>`max(last_sent_at)`.as("last_sent_at"),
          ])
          .where("issue_id", "in", children)
          .groupBy(["user_id", "channel"]),
      )
      .onConflict((oc) =>
        oc.columns(["user_id", "issue_id", "channel"]).doUpdateSet({
          last_sent_at: sql`greatest(notification_throttle.last_sent_at, excluded.last_sent_at)`,
        }),
      )
      .execute();
    await trx.deleteFrom("notification_throttle").where("issue_id", "in", children).execute();
  },
};
