import { sql } from "kysely";
import { Clock, Db, Options } from "../container/tokens.js";
import type { TaskDefinition } from "../worker/task.js";
import { DeliveryEngineToken } from "./tokens.js";

export const DELIVERY_TASK_ID = "delivery.send";
const PRUNE_BATCH = 5000;
const REQUEST_LOG_KEEP = 100;

/** Sends due deliveries; woken after every commit that enqueued some, polled otherwise. */
export function deliveryTask(pollIntervalMs: number): TaskDefinition {
  return {
    id: DELIVERY_TASK_ID,
    intervalMs: pollIntervalMs,
    run: ({ container }) => container.resolve(DeliveryEngineToken).claimAndSend(),
    settle: ({ container }) => container.resolve(DeliveryEngineToken).settle(),
  };
}

/**
 * Prunes finished deliveries after the retention period, and trims each app's request log to its
 * newest 100 requests plus the newest 100 errors per event type.
 */
export const deliveryRetentionTask: TaskDefinition = {
  id: "delivery.retention",
  intervalMs: 3_600_000,
  run: async ({ container }) => {
    const db = container.resolve(Db);
    const cutoff = new Date(container.resolve(Clock).now().getTime() - container.resolve(Options).delivery.retentionDays * 86_400_000);
    const pruned = await db
      .deleteFrom("deliveries")
      .where("id", "in", (eb) => eb.selectFrom("deliveries").select("id").where("date_finished", "<", cutoff).limit(PRUNE_BATCH))
      .executeTakeFirst();
    await db
      .deleteFrom("app_request_log")
      .where("id", "in", (eb) =>
        eb
          .selectFrom(
            eb
              .selectFrom("app_request_log")
              .select([
                "id",
                sql<number>`row_number() OVER (PARTITION BY app_id ORDER BY date_created DESC, id DESC)`.as("overall"),
                sql<number>`row_number() OVER (PARTITION BY app_id, event_type, is_error ORDER BY date_created DESC, id DESC)`.as("per_type"),
                "is_error",
              ])
              .as("ranked"),
          )
          .select("ranked.id")
          .where("ranked.overall", ">", REQUEST_LOG_KEEP)
          .where((w) => w.or([w("ranked.is_error", "=", false), w("ranked.per_type", ">", REQUEST_LOG_KEEP)])),
      )
      .execute();
    return Number(pruned.numDeletedRows) === PRUNE_BATCH;
  },
};
