import type { Kysely } from "kysely";
import type { Database, Delivery } from "../db/schema.js";
import type { SendResult } from "./sender.js";

/** One send of a delivery and what came back. */
export interface Attempt {
  delivery: Delivery;
  result: SendResult;
}

/**
 * What a kind of destination (service hooks, app webhooks, notification channels) adds to
 * delivery: its own headers, what to record per attempt (the app request log), and how it is
 * disabled. A destination that is not an HTTP webhook (email over SMTP) sends its rows itself.
 */
export interface DestinationHandler {
  type: Delivery["destination_type"];
  headers(delivery: Delivery, timestamp: number): Record<string, string>;
  /**
   * Sends one attempt of a delivery in the destination's own protocol, instead of the signed
   * webhook POST. The result speaks HTTP's language: 2xx delivered, `isRetryable` statuses (0 for
   * nothing answered, 5xx, 429) retried on the schedule, anything else given up.
   */
  send?(delivery: Delivery): Promise<SendResult>;
  /**
   * What the delivery log shows as the destination's address, when the stored one must not be
   * shown as it is (a chat webhook URL is a credential).
   */
  displayUrl?(delivery: Delivery): string;
  /** Records a group of attempts (written in the transaction that records their outcomes). */
  onAttempts?(db: Kysely<Database>, attempts: readonly Attempt[], now: Date): Promise<void>;
  /** Turns the destination off; true when it was on (so the host is told once). */
  disable(db: Kysely<Database>, delivery: Delivery): Promise<boolean>;
}

/** Handlers by destination type, registered by the plugins that own the destinations. */
export class DestinationRegistry {
  readonly #handlers = new Map<string, DestinationHandler>();

  register(handler: DestinationHandler): void {
    if (this.#handlers.has(handler.type))
      throw new Error(`A delivery handler for "${handler.type}" is already registered`);
    this.#handlers.set(handler.type, handler);
  }

  /** The handler of a type, or undefined when no plugin of this instance registered one. */
  find(type: string): DestinationHandler | undefined {
    return this.#handlers.get(type);
  }

  get(type: string): DestinationHandler {
    const handler = this.#handlers.get(type);
    if (!handler) throw new Error(`No delivery handler for destination type "${type}"`);
    return handler;
  }
}
