import type { DestinationRegistry } from "../../delivery/destinations.js";
import type { Notifier } from "./notifier.js";

/**
 * The instance's notification channels. Registering one also registers its outbox destination
 * type, so the delivery engine sends its messages (with the channel's own `send`, or as a
 * webhook POST) and the delivery log shows them.
 */
export class NotifierRegistry {
  readonly #notifiers = new Map<string, Notifier>();

  constructor(private readonly destinations: DestinationRegistry) {}

  register(notifier: Notifier): void {
    if (this.#notifiers.has(notifier.channel))
      throw new Error(`A notifier for channel "${notifier.channel}" is already registered`);
    this.destinations.register({
      type: notifier.channel,
      headers: () => ({}),
      ...(notifier.send && {
        send: (delivery) => notifier.send!({ id: delivery.id, address: delivery.url, body: delivery.body }),
      }),
      ...(notifier.displayAddress && { displayUrl: (delivery) => notifier.displayAddress!(delivery.url) }),
      // A notification channel has no destination row to turn off: a failing address just fails.
      disable: async () => false,
    });
    this.#notifiers.set(notifier.channel, notifier);
  }

  /** The channels that reach people (email, a host's push or inbox). */
  personal(): Notifier[] {
    return [...this.#notifiers.values()].filter((notifier) => notifier.audience === "user");
  }

  /** The chat channel, when one is registered. */
  chat(): Notifier | undefined {
    return [...this.#notifiers.values()].find((notifier) => notifier.audience === "chat");
  }

  get(channel: string): Notifier | undefined {
    return this.#notifiers.get(channel);
  }
}
