import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { TransactionScope } from "../../../db/transaction.js";
import type { Actor } from "../../../events/event-bus.js";
import type { IssueReporter } from "../../issues/index.js";
import { settingsOf } from "../monitors/repository.js";
import { latestOnTime, nextExpected } from "../schedule/next.js";
import type { CheckInStatus, CronCheckIn, CronMonitor, CronMonitorEnvironment } from "../tables.js";

/** One check-in as an SDK or the HTTP endpoint sent it. */
export interface CheckInInput {
  /** The SDK's `check_in_id` (an `in_progress` and its `ok`/`error` share it), or null. */
  guid: string | null;
  status: "in_progress" | "ok" | "error";
  durationMs: number | null;
  environment: string;
  at: Date;
}

/** `finalized`: the check-in it updates has finished already (a late `ok` after a timeout), so it is dropped. */
export type RecordResult = "recorded" | "finalized";

type FinishedStatus = Exclude<CheckInStatus, "in_progress">;

/** Who resolves a recovered monitor's issue, in its activity. */
const CRONS_ACTOR: Actor = { type: "application", id: "crons", name: "Cron monitors" };
const MINUTE_MS = 60_000;

const hex = () => randomUUID().replaceAll("-", "");

/** Locks the monitor's state in the environment, creating it on its first check-in. */
export async function lockEnvironment(
  trx: Kysely<Database>,
  monitor: CronMonitor,
  name: string,
  now: Date,
): Promise<CronMonitorEnvironment> {
  await trx
    .insertInto("cron_monitor_environments")
    .values({
      monitor_id: monitor.id,
      organization_id: monitor.organization_id,
      name,
      status: "active",
      failures: 0,
      successes: 0,
      issue_id: null,
      date_created: now,
    })
    .onConflict((oc) => oc.columns(["monitor_id", "name"]).doNothing())
    .execute();
  return trx
    .selectFrom("cron_monitor_environments")
    .selectAll()
    .where("monitor_id", "=", monitor.id)
    .where("name", "=", name)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/**
 * A monitor's check-ins and what follows from them (docs/crons.md): the next expected time, the
 * environment's status, and the monitor issue opened after `failure_issue_threshold` consecutive
 * failures and resolved after `recovery_threshold` consecutive ok check-ins. Every method runs in
 * the caller's transaction with the environment locked, so one check-in is counted once.
 */
export class CheckInRecorder {
  constructor(private readonly reporter: () => IssueReporter) {}

  async record(scope: TransactionScope, monitor: CronMonitor, input: CheckInInput): Promise<RecordResult> {
    const { trx } = scope;
    const environment = await lockEnvironment(trx, monitor, input.environment, input.at);
    const existing = input.guid
      ? await trx
          .selectFrom("cron_check_ins")
          .selectAll()
          .where("monitor_id", "=", monitor.id)
          .where("guid", "=", input.guid)
          .forUpdate()
          .executeTakeFirst()
      : undefined;
    if (existing) return this.#update(scope, monitor, environment, existing, input);
    await this.#insert(trx, monitor, environment, input);
    if (input.status !== "in_progress") await this.#finish(scope, monitor, environment, input.status, input.at);
    return "recorded";
  }

  /** The expected check-in did not come within the margin: a `missed` check-in, and the next expected time. */
  async markMissed(scope: TransactionScope, monitor: CronMonitor, environment: CronMonitorEnvironment, now: Date) {
    const expected = environment.next_checkin ?? now;
    await scope.trx
      .insertInto("cron_check_ins")
      .values({
        guid: hex(),
        monitor_id: monitor.id,
        environment_id: environment.id,
        organization_id: monitor.organization_id,
        status: "missed",
        duration: null,
        expected_time: expected,
        timeout_at: null,
        date_created: expected,
        date_updated: now,
      })
      .execute();
    // The next slot still ahead: a long outage is one missed check-in, not one per slot.
    const margin = monitor.checkin_margin * MINUTE_MS;
    const from = new Date(Math.max(expected.getTime(), now.getTime() - margin));
    await this.#schedule(scope.trx, monitor, environment, from, { last_checkin: environment.last_checkin });
    await this.#finish(scope, monitor, environment, "missed", now);
  }

  /** An `in_progress` check-in past `max_runtime`: it becomes `timeout`, a failure. */
  async markTimedOut(
    scope: TransactionScope,
    monitor: CronMonitor,
    environment: CronMonitorEnvironment,
    checkIn: CronCheckIn,
    now: Date,
  ) {
    await scope.trx
      .updateTable("cron_check_ins")
      .set({ status: "timeout", timeout_at: null, date_updated: now })
      .where("id", "=", checkIn.id as number)
      .execute();
    await this.#finish(scope, monitor, environment, "timeout", now);
  }

  async #update(
    scope: TransactionScope,
    monitor: CronMonitor,
    environment: CronMonitorEnvironment,
    existing: CronCheckIn,
    input: CheckInInput,
  ): Promise<RecordResult> {
    if (existing.status !== "in_progress") return "finalized";
    if (input.status === "in_progress") {
      await scope.trx
        .updateTable("cron_check_ins")
        .set({ date_updated: input.at })
        .where("id", "=", existing.id as number)
        .execute();
      return "recorded";
    }
    const duration = input.durationMs ?? Math.max(0, input.at.getTime() - existing.date_created.getTime());
    await scope.trx
      .updateTable("cron_check_ins")
      .set({ status: input.status, duration: Math.round(duration), timeout_at: null, date_updated: input.at })
      .where("id", "=", existing.id as number)
      .execute();
    await this.#finish(scope, monitor, environment, input.status, input.at);
    return "recorded";
  }

  async #insert(trx: Kysely<Database>, monitor: CronMonitor, environment: CronMonitorEnvironment, input: CheckInInput) {
    const running = input.status === "in_progress";
    await trx
      .insertInto("cron_check_ins")
      .values({
        guid: input.guid ?? hex(),
        monitor_id: monitor.id,
        environment_id: environment.id,
        organization_id: monitor.organization_id,
        status: input.status,
        duration: input.durationMs === null ? null : Math.round(input.durationMs),
        expected_time: environment.next_checkin,
        timeout_at: running ? new Date(input.at.getTime() + monitor.max_runtime * MINUTE_MS) : null,
        date_created: input.at,
        date_updated: input.at,
      })
      .execute();
    // A check-in (started or finished) is the expected one: the next is due one slot later.
    await this.#schedule(trx, monitor, environment, input.at, { last_checkin: input.at });
  }

  async #schedule(
    trx: Kysely<Database>,
    monitor: CronMonitor,
    environment: CronMonitorEnvironment,
    after: Date,
    columns: { last_checkin: Date | null },
  ) {
    const { scheduleType, schedule, timezone } = settingsOf(monitor);
    const next = nextExpected({ type: scheduleType, value: schedule, timezone }, after);
    const latest = next ? latestOnTime(next, monitor.checkin_margin) : null;
    await trx
      .updateTable("cron_monitor_environments")
      .set({ ...columns, next_checkin: next, next_checkin_latest: latest })
      .where("id", "=", environment.id)
      .execute();
  }

  /** Counts a finished check-in; opens the monitor issue or resolves it when a threshold is reached. */
  async #finish(
    scope: TransactionScope,
    monitor: CronMonitor,
    environment: CronMonitorEnvironment,
    status: FinishedStatus,
    now: Date,
  ) {
    const ok = status === "ok";
    const failures = ok ? 0 : environment.failures + 1;
    const successes = ok ? environment.successes + 1 : 0;
    let issueId = environment.issue_id === null ? null : Number(environment.issue_id);
    if (!ok && failures >= monitor.failure_issue_threshold) {
      issueId = await this.#reportFailure(scope, monitor, environment, status, now);
    } else if (ok && issueId !== null && successes >= monitor.recovery_threshold) {
      await this.reporter().resolve(scope, monitor.organization_id, issueId, CRONS_ACTOR);
      issueId = null;
    }
    await scope.trx
      .updateTable("cron_monitor_environments")
      .set({ status: ok ? "ok" : "error", failures, successes, issue_id: issueId })
      .where("id", "=", environment.id)
      .execute();
  }

  /** One event per failure past the threshold, all in one issue per monitor and environment. */
  async #reportFailure(
    scope: TransactionScope,
    monitor: CronMonitor,
    environment: CronMonitorEnvironment,
    status: FinishedStatus,
    now: Date,
  ): Promise<number> {
    const project = { id: monitor.project_id, organizationId: monitor.organization_id, platform: null };
    const { issueId } = await this.reporter().report(scope, project, {
      fingerprint: ["monitor", monitor.slug, environment.name],
      message: `Cron failure: ${monitor.slug}`,
      level: "error",
      tags: { "monitor.slug": monitor.slug, "monitor.id": monitor.guid, "monitor.status": status },
      environment: environment.name,
      contexts: { monitor: { id: monitor.guid, slug: monitor.slug, name: monitor.name, status } },
      timestamp: now,
    });
    return issueId;
  }
}
