import { sql, type Kysely } from "kysely";
import { Db } from "../../container/tokens.js";
import type { Database } from "../../db/schema.js";
import type { QuotaStore } from "../../rate-limit/shared-limiter.js";
import type { TaskDefinition } from "../../worker/task.js";

export type QuotaPeriod = "hour" | "month";

/** A budget window in epoch milliseconds, `end` exclusive. */
export interface WindowBounds {
  start: number;
  end: number;
}

const HOUR_MS = 3_600_000;
/** The hours whose average spike protection compares the current hour with. */
export const BASELINE_HOURS = 24;

export function hourOf(nowMs: number): WindowBounds {
  const start = nowMs - (nowMs % HOUR_MS);
  return { start, end: start + HOUR_MS };
}

/** The calendar month (UTC) holding `nowMs`. */
export function monthOf(nowMs: number): WindowBounds {
  const now = new Date(nowMs);
  return {
    start: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
    end: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
  };
}

/** One period's shared counters in PostgreSQL: one upsert per lease, whichever instance takes it. */
export function quotaWindowStore(db: () => Kysely<Database>, period: QuotaPeriod): QuotaStore {
  return {
    async take(organizationId, windowStart, amount) {
      const row = await db()
        .insertInto("organization_quota_windows")
        .values({ organization_id: organizationId, period, window_start: windowStart, used: amount })
        .onConflict((conflict) =>
          conflict
            .columns(["organization_id", "period", "window_start"])
            .doUpdateSet({ used: sql<number>`organization_quota_windows.used + excluded.used` }),
        )
        .returning("used")
        .executeTakeFirstOrThrow();
      return row.used;
    },
  };
}

/**
 * The organization's average events per hour over the {@link BASELINE_HOURS} before `hourStart`
 * (hours without a counter count as 0). Counters hold what instances leased, so the average may
 * run above what was accepted by the quota leased and unspent (docs/filters-and-quotas.md).
 */
export async function hourlyAverage(db: Kysely<Database>, organizationId: number, hourStart: number): Promise<number> {
  const row = await db
    .selectFrom("organization_quota_windows")
    .select(sql<string | number | null>`sum(used)`.as("total"))
    .where("organization_id", "=", organizationId)
    .where("period", "=", "hour")
    .where("window_start", ">=", new Date(hourStart - BASELINE_HOURS * HOUR_MS))
    .where("window_start", "<", new Date(hourStart))
    .executeTakeFirst();
  return Number(row?.total ?? 0) / BASELINE_HOURS;
}

/**
 * Deletes counters no budget reads any more: hours older than the spike baseline, months before
 * the previous one (an instance's clock may run a little behind). Idempotent.
 */
export const quotaWindowCleanupTask: TaskDefinition = {
  id: "quotas.window-cleanup",
  intervalMs: 15 * 60_000,
  run: async ({ container, now }) => {
    const db = container.resolve(Db);
    const hour = hourOf(now.getTime());
    await db
      .deleteFrom("organization_quota_windows")
      .where("period", "=", "hour")
      .where("window_start", "<", new Date(hour.start - (BASELINE_HOURS + 1) * HOUR_MS))
      .execute();
    const previousMonth = monthOf(monthOf(now.getTime()).start - 1);
    await db
      .deleteFrom("organization_quota_windows")
      .where("period", "=", "month")
      .where("window_start", "<", new Date(previousMonth.start))
      .execute();
    return false;
  },
};
