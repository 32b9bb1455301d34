import { sql, type Kysely } from "kysely";
import { Db } from "../../../container/tokens.js";
import type { Database } from "../../../db/schema.js";
import type { TaskDefinition } from "../../../worker/task.js";
import type { QuotaStore } from "../../../rate-limit/shared-limiter.js";
import { RATE_LIMIT_WINDOW_MS } from "./limits.js";

export {
  leaseSize,
  type QuotaStore,
  type RateDecision,
  SharedRateLimiter,
} from "../../../rate-limit/shared-limiter.js";

/** The shared counters in PostgreSQL: one upsert per lease, whichever instance takes it. */
export function databaseQuotaStore(db: () => Kysely<Database>): QuotaStore {
  return {
    async take(keyId, windowStart, amount) {
      const row = await db()
        .insertInto("rate_limit_windows")
        .values({ key_id: keyId, window_start: windowStart, used: amount })
        .onConflict((conflict) =>
          conflict
            .columns(["key_id", "window_start"])
            .doUpdateSet({ used: sql<number>`rate_limit_windows.used + excluded.used` }),
        )
        .returning("used")
        .executeTakeFirstOrThrow();
      return row.used;
    },
  };
}

/**
 * Deletes the counters of ended windows (the current and previous one stay: an instance's clock
 * may run a little behind). A key's window may be up to a day long (`rate_limit_window`), so a
 * counter goes once two of its own key's windows have passed; counters of deleted keys go after
 * two default windows. Idempotent, so several workers running it do no harm.
 */
export const rateLimitCleanupTask: TaskDefinition = {
  id: "ingest.rate-limit-cleanup",
  intervalMs: 5 * 60_000,
  run: async ({ container, now }) => {
    const shortest = new Date(now.getTime() - 2 * RATE_LIMIT_WINDOW_MS);
    await container
      .resolve(Db)
      .deleteFrom("rate_limit_windows as w")
      .where("w.window_start", "<", shortest)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("project_keys as k")
              .select("k.id")
              .whereRef("k.id", "=", "w.key_id")
              .where(
                sql<boolean>`w.window_start >= ${now}::timestamptz - 2 * k.rate_limit_window * interval '1 second'`,
              ),
          ),
        ),
      )
      .execute();
    return false;
  },
};
