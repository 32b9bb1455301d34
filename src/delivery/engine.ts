import { type Kysely, sql } from "kysely";
import pRetry from "p-retry";
import type { Clock } from "../clock.js";
import { isConnectionFailure } from "../db/errors.js";
import { GroupCommitBatcher } from "../db/group-commit.js";
import type { Database, Delivery, DeliveryStatus } from "../db/schema.js";
import { runInTransaction, type TransactionScope } from "../db/transaction.js";
import { type EventBus, SYSTEM_ACTOR } from "../events/event-bus.js";
import type { Logger } from "../logging/logger.js";
import type { Metrics } from "../observability/metrics.js";
import { inActiveSpan, SPAN_STATUS_ERROR } from "../observability/tracing.js";
import type { ResolvedOptions } from "../options.js";
import type { Attempt, DestinationRegistry } from "./destinations.js";
import { isRetryable, nextAttemptDelayMs, parseRetryAfter } from "./schedule.js";
import { postWebhook } from "./sender.js";
import { standardWebhookSignature } from "./signing.js";

const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** A claimed delivery is re-claimable after this, should its worker die mid-send (at least once). */
const LEASE_EXTRA_MS = 30_000;

declare module "../events/event-bus.js" {
  interface DomainEventMap {
    /** A webhook destination was disabled (410 Gone, or five days of failures). */
    "delivery.destination_disabled": {
      destinationType: Delivery["destination_type"];
      destinationId: string;
      reason: "gone" | "failing";
    };
  }
}

/**
 * Sends due deliveries: claims them with FOR UPDATE SKIP LOCKED under a lease (so several
 * workers never send a claimed row twice, and a crashed worker's rows come back), signs the
 * exact stored bytes, POSTs, and records the outcome and the next attempt.
 */
export class DeliveryEngine {
  readonly #inFlight = new Set<Promise<void>>();
  #capacityFreed: NodeJS.Immediate | undefined;
  // Outcomes of sends that finish together are recorded together (group commit).
  readonly #outcomes = new GroupCommitBatcher<Attempt>((attempts) => this.#recordGroup(attempts), {
    maxBatch: 256,
    maxDelayMs: 2,
    maxConcurrent: 2,
  });

  readonly #outcomeCount;
  readonly #sendTime;

  /** `onCapacity` is called when sends finish, so the worker claims more at once instead of at its next poll. */
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly events: EventBus,
    private readonly destinations: DestinationRegistry,
    private readonly options: ResolvedOptions["delivery"],
    metrics: Metrics,
    private readonly onCapacity: () => void = () => {},
  ) {
    this.#outcomeCount = metrics.counter(
      "deliveries_total",
      "Delivery attempts recorded, by destination type and outcome (delivered, retrying, failed)",
      ["destination", "outcome"],
    );
    this.#sendTime = metrics.histogram(
      "delivery_duration_seconds",
      "Time a destination took to answer a delivery (or to fail)",
      ["destination"],
    );
  }

  /** Claims as many due deliveries as there are free slots and starts sending them; true when it filled every slot. */
  async claimAndSend(): Promise<boolean> {
    const free = this.options.concurrency - this.#inFlight.size;
    if (free <= 0) return false;
    const claimed = await this.#claim(free);
    for (const delivery of claimed) {
      const sending = this.#deliver(delivery)
        .catch((error: unknown) =>
          this.logger.error({ err: error, deliveryId: delivery.id }, "faultline: recording a delivery failed"),
        )
        .finally(() => {
          this.#inFlight.delete(sending);
          this.#announceCapacity();
        });
      this.#inFlight.add(sending);
    }
    return claimed.length === free;
  }

  /** Sends recorded in one group commit finish together: the worker is told once, after all of them. */
  #announceCapacity(): void {
    if (this.#capacityFreed) return;
    this.#capacityFreed = setImmediate(() => {
      this.#capacityFreed = undefined;
      this.onCapacity();
    });
  }

  /** Waits for every send in flight (graceful stop, tests). */
  async settle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #claim(limit: number): Promise<Delivery[]> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.options.timeoutMs + LEASE_EXTRA_MS);
    return this.db()
      .updateTable("deliveries")
      .set((eb) => ({ attempts: eb("attempts", "+", 1), last_attempt_at: now, next_attempt_at: leaseUntil }))
      .where("id", "in", (eb) =>
        eb
          .selectFrom("deliveries")
          .select("id")
          .where("status", "=", "pending")
          .where("next_attempt_at", "<=", now)
          .orderBy("next_attempt_at")
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
  }

  async #deliver(delivery: Delivery): Promise<void> {
    const handler = this.destinations.get(delivery.destination_type);
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "faultline-webhooks/1",
      ...handler.headers(delivery, timestamp),
      "webhook-id": delivery.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": standardWebhookSignature(delivery.secret, delivery.id, timestamp, delivery.body),
    };
    const attributes = {
      ...(!handler.send && { "http.request.method": "POST" }),
      "server.address": hostOf(delivery.url),
      "faultline.delivery.id": delivery.id,
      "faultline.delivery.attempt": delivery.attempts,
      "faultline.delivery.destination_type": delivery.destination_type,
    };
    const result = await inActiveSpan("delivery.send", { kind: "client", attributes }, async (span) => {
      try {
        const sent = handler.send
          ? await handler.send(delivery)
          : await postWebhook(delivery.url, delivery.body, headers, {
              timeoutMs: this.options.timeoutMs,
              allowPrivateNetworks: this.options.allowPrivateNetworks,
            });
        span.setAttribute("http.response.status_code", sent.status);
        if (sent.status < 200 || sent.status >= 300)
          span.setStatus({ code: SPAN_STATUS_ERROR, message: sent.error ?? `HTTP ${sent.status}` });
        return sent;
      } finally {
        span.end();
      }
    });
    this.#sendTime.observe({ destination: delivery.destination_type }, result.durationMs / 1000);
    await this.#outcomes.submit({ delivery, result });
  }

  /**
   * Records a group of finished attempts, then turns off the destinations that must be, each in a
   * transaction of its own. Deleting or changing a destination locks its row before its pending
   * deliveries; disabling one inside the outcome transaction (deliveries locked first) would take
   * the same locks in the opposite order and could deadlock with them. A failed disable is only
   * logged: the outcomes are committed, and the destination's next failure disables it again.
   */
  async #recordGroup(attempts: Attempt[]): Promise<void> {
    const disabling = await this.#untilRecorded(() =>
      runInTransaction(this.db(), (scope) => this.#record(scope, attempts)),
    );
    for (const { delivery, reason } of disabling) {
      await runInTransaction(this.db(), (scope) => this.#disable(scope, delivery, reason)).catch((error: unknown) =>
        this.logger.error(
          { err: error, destinationType: delivery.destination_type, destinationId: delivery.destination_id },
          "faultline: disabling a webhook destination failed",
        ),
      );
    }
  }

  /**
   * The sends happened: if the database is unreachable when their outcomes are written, the
   * write is retried with backoff for as long as the claim's lease lasts, rather than leaving the
   * deliveries to be sent again once the lease runs out. Re-running the write is harmless: the
   * outcome update is guarded by the attempt number.
   */
  #untilRecorded<T>(write: () => Promise<T>): Promise<T> {
    return pRetry(write, {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 100,
      maxTimeout: 5_000,
      randomize: true,
      maxRetryTime: LEASE_EXTRA_MS,
      shouldRetry: ({ error }) => isConnectionFailure(error),
      onFailedAttempt: ({ error, attemptNumber }) => {
        if (isConnectionFailure(error))
          this.logger.warn(
            { err: error, attemptNumber },
            "faultline: recording delivery outcomes failed (database unreachable); retrying",
          );
      },
    });
  }

  /** Records a group of finished attempts in one transaction (a few statements per group, not per send); returns what to disable. */
  async #record(scope: TransactionScope, attempts: Attempt[]): Promise<Disabling[]> {
    const now = this.clock.now();
    const outcomes = attempts.map((attempt) => ({ ...attempt, ...this.#outcome(attempt, now) }));
    await updateDeliveries(scope, outcomes, now);
    scope.afterCommit(() => {
      for (const { delivery, status } of outcomes)
        this.#outcomeCount.inc({ destination: delivery.destination_type, outcome: OUTCOME_LABELS[status] });
    });
    for (const [type, group] of groupBy(outcomes, (o) => o.delivery.destination_type)) {
      await this.destinations.get(type).onAttempts?.(scope.trx, group, now);
    }
    await this.#markHealthy(
      scope,
      outcomes.filter((o) => o.status === "delivered").map((o) => o.delivery),
      now,
    );
    // A destination that is down fails every send of the group: its health is written once.
    const disabling: Disabling[] = [];
    for (const { delivery, result } of failuresPerDestination(outcomes)) {
      if (result.status === 410) disabling.push({ delivery, reason: "gone" });
      else if (await this.#markFailing(scope, delivery, now)) disabling.push({ delivery, reason: "failing" });
    }
    return disabling;
  }

  #outcome({ delivery, result }: Attempt, now: Date): { status: DeliveryStatus; nextAttemptAt: Date } {
    const success = result.status >= 200 && result.status < 300;
    const delay =
      success || !isRetryable(result.status)
        ? null
        : nextAttemptDelayMs(delivery.attempts, this.options.retryDelays, parseRetryAfter(result.retryAfter, now));
    const status = success ? "delivered" : delay === null ? "failed" : "pending";
    return { status, nextAttemptAt: delay === null ? now : new Date(now.getTime() + delay) };
  }

  /** One upsert for every destination that took a delivery, in key order (no deadlock between workers). */
  async #markHealthy({ trx }: TransactionScope, delivered: Delivery[], now: Date): Promise<void> {
    const keys = new Map(delivered.map((d) => [destinationKey(d), d]));
    if (keys.size === 0) return;
    const rows = [...keys.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, d]) => ({
        destination_type: d.destination_type,
        destination_id: d.destination_id,
        last_success_at: now,
        first_failure_at: null,
      }));
    await trx
      .insertInto("delivery_destinations")
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(["destination_type", "destination_id"])
          .doUpdateSet({ last_success_at: now, first_failure_at: null }),
      )
      .execute();
  }

  /** Records a failure; true once five consecutive days of failures without a success call for disabling. */
  async #markFailing(scope: TransactionScope, delivery: Delivery, now: Date): Promise<boolean> {
    const health = await scope.trx
      .insertInto("delivery_destinations")
      .values({
        destination_type: delivery.destination_type,
        destination_id: delivery.destination_id,
        last_success_at: null,
        first_failure_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["destination_type", "destination_id"]).doUpdateSet((eb) => ({
          first_failure_at: eb.fn.coalesce("delivery_destinations.first_failure_at", eb.val(now)),
        })),
      )
      .returning(["first_failure_at"])
      .executeTakeFirstOrThrow();
    return health.first_failure_at !== null && now.getTime() - health.first_failure_at.getTime() >= DISABLE_AFTER_MS;
  }

  async #disable(scope: TransactionScope, delivery: Delivery, reason: Disabling["reason"]): Promise<void> {
    if (!(await this.destinations.get(delivery.destination_type).disable(scope.trx, delivery))) return;
    await scope.trx
      .updateTable("deliveries")
      .set({ status: "cancelled", date_finished: this.clock.now() })
      .where("destination_type", "=", delivery.destination_type)
      .where("destination_id", "=", delivery.destination_id)
      .where("status", "=", "pending")
      .execute();
    await this.events.emit(scope, {
      name: "delivery.destination_disabled",
      organizationId: delivery.organization_id,
      actor: SYSTEM_ACTOR,
      occurredAt: this.clock.now(),
      payload: { destinationType: delivery.destination_type, destinationId: delivery.destination_id, reason },
    });
  }
}

type Outcome = Attempt & { status: DeliveryStatus; nextAttemptAt: Date };

/** An attempt's outcome as the `deliveries_total` metric names it: `pending` after an attempt means a retry is scheduled. */
const OUTCOME_LABELS: Record<DeliveryStatus, string> = {
  delivered: "delivered",
  pending: "retrying",
  failed: "failed",
  cancelled: "cancelled",
};

/** A destination to turn off: 410 Gone, or five days of failures. */
interface Disabling {
  delivery: Delivery;
  reason: "gone" | "failing";
}

/**
 * Writes every attempt's outcome in one statement, then each recorded attempt's row of the
 * delivery log's history. Guarded by the attempt number: a worker whose lease ran out must not
 * overwrite a newer attempt. Only the deliveries the update matched get a history row: those are
 * locked by this transaction, so none can be deleted (organization deletion, retention) before
 * the insert checks its foreign key, which would otherwise roll back the outcomes of the group.
 */
async function updateDeliveries({ trx }: TransactionScope, outcomes: Outcome[], now: Date): Promise<void> {
  const rows = outcomes.map(({ delivery, result, status, nextAttemptAt }) => ({
    id: delivery.id,
    attempts: delivery.attempts,
    status,
    code: result.status,
    error: result.error,
    duration: Math.round(result.durationMs),
    next_at: nextAttemptAt.toISOString(),
    finished: status === "pending" ? null : now.toISOString(),
  }));
  const updated = await trx
    .updateTable("deliveries as d")
    .from(
      sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)`.as<"v">(
        sql`v(id uuid, attempts integer, status text, code integer, error text, duration integer, next_at timestamptz, finished timestamptz)`,
      ),
    )
    .set({
      status: sql`v.status`,
      last_response_code: sql`v.code`,
      last_error: sql`v.error`,
      last_duration_ms: sql`v.duration`,
      next_attempt_at: sql`v.next_at`,
      date_finished: sql`v.finished`,
    })
    .where(sql<boolean>`d.id = v.id AND d.attempts = v.attempts`)
    .returning("d.id")
    .execute();
  const recorded = new Set(updated.map((row) => row.id));
  const attempts = outcomes
    .filter(({ delivery }) => recorded.has(delivery.id))
    .map(({ delivery, result }) => ({
      delivery_id: delivery.id,
      attempt: delivery.attempts,
      url: delivery.url,
      // A status of 0 means nothing answered: the history says so with no code rather than a fake one.
      response_code: result.status === 0 ? null : result.status,
      error: result.error,
      duration_ms: Math.round(result.durationMs),
      date_created: delivery.last_attempt_at ?? now,
    }));
  if (attempts.length > 0) await trx.insertInto("delivery_attempts").values(attempts).execute();
}

/** The host a delivery goes to, for its span; "" for a URL that does not parse (the send reports that). */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname : "";
}

function destinationKey(delivery: Delivery): string {
  return `${delivery.destination_type}\0${delivery.destination_id}`;
}

/** One failed outcome per destination, a 410 (which disables it) preferred over other failures. */
function failuresPerDestination(outcomes: readonly Outcome[]): Outcome[] {
  const chosen = new Map<string, Outcome>();
  for (const outcome of outcomes) {
    if (outcome.status === "delivered") continue;
    const key = destinationKey(outcome.delivery);
    if (!chosen.has(key) || outcome.result.status === 410) chosen.set(key, outcome);
  }
  return [...chosen.values()];
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
