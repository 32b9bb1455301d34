import { sql } from "kysely";
import type { Clock } from "../clock.js";
import { randomUUID } from "../crypto/secrets.js";
import type { Delivery } from "../db/schema.js";
import type { TransactionScope } from "../db/transaction.js";

export interface NewDelivery {
  organizationId: number;
  destinationType: Delivery["destination_type"];
  destinationId: string;
  installationUuid?: string | null;
  url: string;
  secret: string;
  eventType: string;
  /** The app webhook category (`issue`, `error`, …) or the service hook event. */
  resource: string;
  /** The payload, given the delivery id (stable across retries, so receivers de-duplicate on it). */
  body(deliveryId: string): unknown;
  /** Also send Sentry's `Sentry-Hook-*` header names (an app's opt-in). */
  sentryHookHeaders?: boolean;
}

/**
 * The transactional outbox: deliveries are rows written in the transaction of the change that
 * caused them, so they commit or roll back with it. After commit the worker is woken — in this
 * process directly, in others through NOTIFY (itself transactional: sent only on commit).
 */
export class Outbox {
  readonly #notified = new WeakSet<TransactionScope>();

  constructor(
    private readonly clock: Clock,
    private readonly channel: string,
    private readonly wake: () => void,
  ) {}

  async enqueue(scope: TransactionScope, deliveries: readonly NewDelivery[]): Promise<string[]> {
    if (deliveries.length === 0) return [];
    const now = this.clock.now();
    const rows = deliveries.map((delivery) => {
      const id = randomUUID();
      return {
        id,
        organization_id: delivery.organizationId,
        destination_type: delivery.destinationType,
        destination_id: delivery.destinationId,
        installation_uuid: delivery.installationUuid ?? null,
        url: delivery.url,
        secret: delivery.secret,
        event_type: delivery.eventType,
        resource: delivery.resource,
        body: JSON.stringify(delivery.body(id)),
        next_attempt_at: now,
        date_created: now,
        last_attempt_at: null,
        last_response_code: null,
        last_error: null,
        date_finished: null,
        sentry_hook_headers: delivery.sentryHookHeaders ?? false,
      };
    });
    await scope.trx.insertInto("deliveries").values(rows).execute();
    if (!this.#notified.has(scope)) {
      this.#notified.add(scope);
      await sql`SELECT pg_notify(${this.channel}, '')`.execute(scope.trx);
      scope.afterCommit(this.wake);
    }
    return rows.map((row) => row.id);
  }
}
