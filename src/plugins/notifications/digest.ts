import type { ResolvedOptions } from "../../options.js";
import { Clock, Db, Options } from "../../container/tokens.js";
import { runInTransaction } from "../../db/transaction.js";
import type { TaskDefinition } from "../../worker/task.js";
import { NotificationServiceToken } from "./tokens.js";

/** Held notifications sent per run (the next run follows at once while more are due). */
const BATCH = 500;
/** Throttle rows are kept at least this long after their last message (then they say nothing). */
const THROTTLE_KEEP_MS = 3_600_000;

/**
 * Sends what the throttle held back: once a held notification has waited the interval, every
 * notification held for that user, channel and category goes out as one digest. Several workers
 * never send one twice (the items are claimed with SKIP LOCKED and deleted in the same transaction).
 */
export const notificationDigestTask: TaskDefinition = {
  id: "notifications.digest",
  intervalMs: 30_000,
  run: ({ container }) =>
    runInTransaction(container.resolve(Db), async (scope) => {
      const { minIntervalMinutes } = (container.resolve(Options) as ResolvedOptions).notifications;
      const service = container.resolve(NotificationServiceToken);
      const now = container.resolve(Clock).now();
      const cutoff = new Date(now.getTime() - minIntervalMinutes * 60_000);
      // Every held item of a user, channel and category whose oldest item has waited the interval.
      const items = await scope.trx
        .selectFrom("notification_digest_items as i")
        .selectAll()
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom("notification_digest_items as d")
              .select("d.id")
              .whereRef("d.organization_id", "=", "i.organization_id")
              .whereRef("d.user_id", "=", "i.user_id")
              .whereRef("d.channel", "=", "i.channel")
              .whereRef("d.category", "=", "i.category")
              .where("d.date_created", "<=", cutoff),
          ),
        )
        .orderBy("id")
        .limit(BATCH)
        .forUpdate()
        .skipLocked()
        .execute();
      const groups = new Map<string, typeof items>();
      for (const item of items) {
        const key = `${item.organization_id}:${item.user_id}:${item.channel}:${item.category}`;
        const group = groups.get(key);
        if (group) group.push(item);
        else groups.set(key, [item]);
      }
      for (const group of groups.values()) {
        const first = group[0]!;
        const [user] = await service.recipients.users(scope.trx, first.organization_id, [first.user_id]);
        // A member who left, or was deactivated, since is told nothing.
        if (user)
          await service.sendDigest(
            scope,
            first.channel,
            user,
            group.map((item) => item.notification),
          );
        await service.touchThrottle(
          scope.trx,
          first.channel,
          user ? first.user_id : null,
          group.flatMap((item) => (item.notification.issue ? [item.notification.issue.id] : [])),
          now,
        );
      }
      if (items.length > 0)
        await scope.trx
          .deleteFrom("notification_digest_items")
          .where(
            "id",
            "in",
            items.map((item) => Number(item.id)),
          )
          .execute();
      await scope.trx
        .deleteFrom("notification_throttle")
        .where("last_sent_at", "<", new Date(Math.min(cutoff.getTime(), now.getTime() - THROTTLE_KEEP_MS)))
        .execute();
      return items.length === BATCH;
    }),
};
