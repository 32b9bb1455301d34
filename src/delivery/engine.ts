import type { Kysely } from "kysely";
import type { Clock } from "../clock.js";
import type { Database, Delivery } from "../db/schema.js";
import { runInTransaction, type TransactionScope } from "../db/transaction.js";
import { type EventBus, SYSTEM_ACTOR } from "../events/event-bus.js";
import type { Logger } from "../logging/logger.js";
import type { ResolvedOptions } from "../options.js";
import type { DestinationRegistry } from "./destinations.js";
import { isRetryable, nextAttemptDelayMs, parseRetryAfter } from "./schedule.js";
import { postWebhook, type SendResult } from "./sender.js";
import { standardWebhookSignature } from "./signing.js";

const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** A claimed delivery is re-claimable after this, should its worker die mid-send (at least once). */
const LEASE_EXTRA_MS = 30_000;

declare module "../events/event-bus.js" {
  interface DomainEventMap {
    /** A webhook destination was disabled (410 Gone, or five days of failures). */
    "delivery.destination_disabled": { destinationType: Delivery["destination_type"]; destinationId: string; reason: "gone" | "failing" };
  }
}

/**
 * Sends due deliveries: claims them with FOR UPDATE SKIP LOCKED under a lease (so several
 * workers never send a claimed row twice, and a crashed worker's rows come back), signs the
 * exact stored bytes, POSTs, and records the outcome and the next attempt.
 */
export class DeliveryEngine {
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly events: EventBus,
    private readonly destinations: DestinationRegistry,
    private readonly options: ResolvedOptions["delivery"],
  ) {}

  /** Claims as many due deliveries as there are free slots and starts sending them; true when it filled every slot. */
  async claimAndSend(): Promise<boolean> {
    const free = this.options.concurrency - this.#inFlight.size;
    if (free <= 0) return false;
    const claimed = await this.#claim(free);
    for (const delivery of claimed) {
      const sending = this.#deliver(delivery)
        .catch((error: unknown) => this.logger.error({ err: error, deliveryId: delivery.id }, "faultline: recording a delivery failed"))
        .finally(() => this.#inFlight.delete(sending));
      this.#inFlight.add(sending);
    }
    return claimed.length === free;
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
    const result = await postWebhook(delivery.url, delivery.body, headers, {
      timeoutMs: this.options.timeoutMs,
      allowPrivateNetworks: this.options.allowPrivateNetworks,
    });
    await runInTransaction(this.db(), (scope) => this.#record(scope, delivery, result));
  }

  async #record(scope: TransactionScope, delivery: Delivery, result: SendResult): Promise<void> {
    const { trx } = scope;
    const now = this.clock.now();
    const handler = this.destinations.get(delivery.destination_type);
    const success = result.status >= 200 && result.status < 300;
    const delay = success || !isRetryable(result.status) ? null : nextAttemptDelayMs(delivery.attempts, this.options.retryDelays, parseRetryAfter(result.retryAfter, now));
    const status = success ? "delivered" : delay === null ? "failed" : "pending";
    // Guarded by the attempt number: a worker whose lease ran out must not overwrite a newer attempt.
    await trx
      .updateTable("deliveries")
      .set({
        status,
        last_response_code: result.status,
        last_error: result.error,
        next_attempt_at: delay === null ? now : new Date(now.getTime() + delay),
        date_finished: status === "pending" ? null : now,
      })
      .where("id", "=", delivery.id)
      .where("attempts", "=", delivery.attempts)
      .execute();
    await handler.onAttempt?.(trx, delivery, result, now);
    if (success) return this.#markHealthy(scope, delivery, now);
    if (result.status === 410) return this.#disable(scope, delivery, "gone");
    await this.#markFailing(scope, delivery, now);
  }

  async #markHealthy({ trx }: TransactionScope, delivery: Delivery, now: Date): Promise<void> {
    await trx
      .insertInto("delivery_destinations")
      .values({ destination_type: delivery.destination_type, destination_id: delivery.destination_id, last_success_at: now, first_failure_at: null })
      .onConflict((oc) => oc.columns(["destination_type", "destination_id"]).doUpdateSet({ last_success_at: now, first_failure_at: null }))
      .execute();
  }

  /** Five consecutive days of failures without a success disable the destination. */
  async #markFailing(scope: TransactionScope, delivery: Delivery, now: Date): Promise<void> {
    const health = await scope.trx
      .insertInto("delivery_destinations")
      .values({ destination_type: delivery.destination_type, destination_id: delivery.destination_id, last_success_at: null, first_failure_at: now })
      .onConflict((oc) =>
        oc.columns(["destination_type", "destination_id"]).doUpdateSet((eb) => ({ first_failure_at: eb.fn.coalesce("delivery_destinations.first_failure_at", eb.val(now)) })),
      )
      .returning(["first_failure_at"])
      .executeTakeFirstOrThrow();
    if (health.first_failure_at && now.getTime() - health.first_failure_at.getTime() >= DISABLE_AFTER_MS) {
      await this.#disable(scope, delivery, "failing");
    }
  }

  async #disable(scope: TransactionScope, delivery: Delivery, reason: "gone" | "failing"): Promise<void> {
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
