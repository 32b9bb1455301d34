import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";

/**
 * Why a user is subscribed to an issue, as Sentry's `subscriptionDetails.reason` says it:
 * `explicit` (they chose, through the issue's `PUT`), `assigned`, `commented`, `status_change`
 * (they resolved it).
 */
export type SubscriptionReason = "explicit" | "assigned" | "commented" | "status_change";

/**
 * Who follows an issue (its `isSubscribed` flag, per user): set automatically for the assignee,
 * commenters and whoever resolved it, and by the user through the issue's `PUT`. The workflow
 * notifications tell subscribers what happens to it.
 */
export class IssueSubscriptions {
  /**
   * Subscribes users for a reason. An explicit unsubscribe stands: taking part later does not
   * subscribe that user again (as in Sentry).
   */
  async subscribe(
    trx: Kysely<Database>,
    issueId: number,
    userIds: readonly number[],
    reason: Exclude<SubscriptionReason, "explicit">,
  ): Promise<void> {
    const unique = [...new Set(userIds)].sort((a, b) => a - b);
    if (unique.length === 0) return;
    await trx
      .insertInto("issue_user_state")
      .values(
        unique.map((userId) => ({
          issue_id: issueId,
          user_id: userId,
          is_subscribed: true,
          subscription_reason: reason,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["issue_id", "user_id"])
          .doUpdateSet({ is_subscribed: true, subscription_reason: reason })
          // Someone already subscribed keeps their first reason; an explicit unsubscribe is left alone.
          .where("issue_user_state.is_subscribed", "=", false)
          .where(sql<boolean>`issue_user_state.subscription_reason IS DISTINCT FROM 'explicit'`),
      )
      .execute();
  }

  /** The users subscribed to an issue. */
  async subscribers(trx: Kysely<Database>, issueId: number): Promise<number[]> {
    const rows = await trx
      .selectFrom("issue_user_state")
      .select("user_id")
      .where("issue_id", "=", issueId)
      .where("is_subscribed", "=", true)
      .orderBy("user_id")
      .execute();
    return rows.map((row) => row.user_id);
  }
}
