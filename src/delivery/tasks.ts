import { Clock, Db, Options } from "../container/tokens.js";
import type { TaskDefinition } from "../worker/task.js";
import { DeliveryEngineToken } from "./tokens.js";

export const DELIVERY_TASK_ID = "delivery.send";
const PRUNE_BATCH = 5000;

/** Sends due deliveries; woken after every commit that enqueued some, polled otherwise. */
export function deliveryTask(pollIntervalMs: number): TaskDefinition {
  return {
    id: DELIVERY_TASK_ID,
    intervalMs: pollIntervalMs,
    run: ({ container }) => container.resolve(DeliveryEngineToken).claimAndSend(),
    settle: ({ container }) => container.resolve(DeliveryEngineToken).settle(),
  };
}

/** Prunes finished deliveries after the retention period. */
export const deliveryRetentionTask: TaskDefinition = {
  id: "delivery.retention",
  intervalMs: 3_600_000,
  run: async ({ container }) => {
    const db = container.resolve(Db);
    const cutoff = new Date(
      container.resolve(Clock).now().getTime() - container.resolve(Options).delivery.retentionDays * 86_400_000,
    );
    const pruned = await db
      .deleteFrom("deliveries")
      .where("id", "in", (eb) =>
        eb.selectFrom("deliveries").select("id").where("date_finished", "<", cutoff).limit(PRUNE_BATCH),
      )
      .executeTakeFirst();
    return Number(pruned.numDeletedRows) === PRUNE_BATCH;
  },
};
