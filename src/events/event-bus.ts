import type { TransactionScope } from "../db/transaction.js";

/** Who caused a change: a user, or the system/an app (`{type: "application", id: "svc", name: "svc"}`). */
export interface Actor {
  type: "user" | "application";
  id: string;
  name: string;
}

export const SYSTEM_ACTOR: Actor = { type: "application", id: "svc", name: "svc" };

/**
 * Domain events by name → payload. Feature areas add their events by declaration merging:
 * `declare module "faultline" { interface DomainEventMap { "issue.created": {...} } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainEventMap {}

export type DomainEventName = keyof DomainEventMap & string;

export interface DomainEvent<N extends DomainEventName = DomainEventName> {
  name: N;
  organizationId: number;
  actor: Actor;
  occurredAt: Date;
  payload: DomainEventMap[N];
}

export type DomainEventHandler<N extends DomainEventName = DomainEventName> = (
  event: DomainEvent<N>,
  scope: TransactionScope,
) => Promise<void> | void;

export type DomainEventSubscriptions = { [N in DomainEventName]?: DomainEventHandler<N> };

/**
 * Synchronous, transaction-aware publish/subscribe: subscribers run inside the emitting
 * transaction, in subscription order, so their writes (outbox rows) share its fate.
 */
export class EventBus {
  readonly #handlers = new Map<string, Array<DomainEventHandler<never>>>();

  subscribe<N extends DomainEventName>(name: N, handler: DomainEventHandler<N>): void {
    const list = this.#handlers.get(name) ?? [];
    list.push(handler as DomainEventHandler<never>);
    this.#handlers.set(name, list);
  }

  async emit<N extends DomainEventName>(scope: TransactionScope, event: DomainEvent<N>): Promise<void> {
    for (const handler of this.#handlers.get(event.name) ?? []) {
      await (handler as DomainEventHandler<N>)(event, scope);
    }
  }
}
