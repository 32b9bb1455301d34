import { Clock, Db } from "../../container/tokens.js";
import { runInTransaction } from "../../db/transaction.js";
import type { TaskDefinition } from "../../worker/task.js";
import { CheckInRecorderToken } from "./tokens.js";

/** Environments or check-ins handled per slice (one transaction). */
const BATCH = 50;

/**
 * Marks expected check-ins that did not come within the margin as `missed` (docs/crons.md). Each
 * environment is claimed with `FOR UPDATE SKIP LOCKED` and its due time checked under the lock, so
 * two instances (or two runs) never record one miss twice.
 */
export const missedCheckInsTask: TaskDefinition = {
  id: "crons.missed-check-ins",
  intervalMs: 30_000,
  run: ({ container }) =>
    runInTransaction(container.resolve(Db), async (scope) => {
      const now = container.resolve(Clock).now();
      const due = await scope.trx
        .selectFrom("cron_monitor_environments as e")
        .innerJoin("cron_monitors as m", "m.id", "e.monitor_id")
        .selectAll("e")
        .where("e.next_checkin_latest", "<=", now)
        .where("m.status", "=", "active")
        .orderBy("e.next_checkin_latest")
        .limit(BATCH)
        .forUpdate("e")
        .skipLocked()
        .execute();
      const recorder = container.resolve(CheckInRecorderToken);
      for (const environment of due) {
        const monitor = await scope.trx
          .selectFrom("cron_monitors")
          .selectAll()
          .where("id", "=", environment.monitor_id)
          .executeTakeFirstOrThrow();
        await recorder.markMissed(scope, monitor, environment, now);
      }
      return due.length === BATCH;
    }),
};

/**
 * Turns `in_progress` check-ins older than the monitor's `max_runtime` into `timeout`. The
 * environment is locked first (as a check-in locks it), skipping one another instance holds, and
 * the check-in is read again under that lock: each times out once.
 */
export const timedOutCheckInsTask: TaskDefinition = {
  id: "crons.timed-out-check-ins",
  intervalMs: 30_000,
  run: ({ container }) =>
    runInTransaction(container.resolve(Db), async (scope) => {
      const now = container.resolve(Clock).now();
      const candidates = await scope.trx
        .selectFrom("cron_check_ins")
        .select(["id", "environment_id"])
        .where("status", "=", "in_progress")
        .where("timeout_at", "<=", now)
        .orderBy("timeout_at")
        .limit(BATCH)
        .execute();
      const recorder = container.resolve(CheckInRecorderToken);
      for (const candidate of candidates) {
        const environment = await scope.trx
          .selectFrom("cron_monitor_environments")
          .selectAll()
          .where("id", "=", candidate.environment_id)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (!environment) continue;
        const checkIn = await scope.trx
          .selectFrom("cron_check_ins")
          .selectAll()
          .where("id", "=", candidate.id as number)
          .where("status", "=", "in_progress")
          .where("timeout_at", "<=", now)
          .forUpdate()
          .executeTakeFirst();
        if (!checkIn) continue;
        const monitor = await scope.trx
          .selectFrom("cron_monitors")
          .selectAll()
          .where("id", "=", environment.monitor_id)
          .executeTakeFirstOrThrow();
        await recorder.markTimedOut(scope, monitor, environment, checkIn, now);
      }
      return candidates.length === BATCH;
    }),
};
