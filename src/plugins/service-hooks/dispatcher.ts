import type { Delivery } from "../../db/schema.js";
import type { ServiceHook } from "./tables.js";
import type { TransactionScope } from "../../db/transaction.js";
import { TransactionMemo } from "../../db/transaction-memo.js";
import type { DestinationHandler } from "../../delivery/destinations.js";
import type { Outbox } from "../../delivery/outbox.js";
import { hexSignature } from "../../delivery/signing.js";
import { type EventSnapshot, issueLinks, type IssueSnapshot } from "../issues/index.js";
import type { OrganizationLinks } from "../organizations/index.js";
import { eventAlertPayload } from "./payload.js";
import type { ServiceHookRepository } from "./repository.js";

/** Turns events into service hook deliveries (`event.created` now, `event.alert` for alert rules). */
export class ServiceHookDispatcher {
  /** Hooks per (project, event) for the life of one transaction: a batch of events costs one query. */
  readonly #hooks = new TransactionMemo<string, Promise<ServiceHook[]>>();

  constructor(
    private readonly repository: ServiceHookRepository,
    private readonly outbox: Outbox,
    private readonly links: OrganizationLinks,
  ) {}

  /** One delivery per active hook of the event's project subscribed to `hookEvent`. */
  async dispatch(
    scope: TransactionScope,
    hookEvent: "event.created" | "event.alert",
    issue: IssueSnapshot,
    event: EventSnapshot,
    triggeringRules: string[] = [],
  ): Promise<void> {
    const hooks = await this.#subscribed(scope, issue.project.id, hookEvent);
    if (hooks.length === 0) return;
    const links = await this.links.forOrganization(scope, hooks[0]?.organization_id as number);
    const { url } = issueLinks(links.base, links.permalinkTemplate, links.organizationSlug, issue);
    await this.outbox.enqueue(
      scope,
      hooks.map((hook) => ({
        organizationId: hook.organization_id,
        destinationType: "service_hook" as const,
        destinationId: hook.id,
        url: hook.url,
        secret: hook.secret,
        eventType: hookEvent,
        resource: hookEvent,
        body: (deliveryId: string) => eventAlertPayload({ deliveryId, issue, event, issueUrl: url, triggeringRules }),
      })),
    );
  }

  #subscribed(scope: TransactionScope, projectId: number, hookEvent: string): Promise<ServiceHook[]> {
    return this.#hooks.get(scope, `${projectId}:${hookEvent}`, () =>
      this.repository.subscribed(scope.trx, projectId, hookEvent),
    );
  }
}

/** Service hook deliveries: the seed's `X-Svc-Hook-*` headers; disabling sets the hook's status. */
export const serviceHookDestination: DestinationHandler = {
  type: "service_hook",
  headers: (delivery: Delivery, timestamp: number) => ({
    "X-Svc-Hook-Signature": hexSignature(delivery.secret, delivery.body),
    "X-Svc-Hook-Timestamp": String(timestamp),
    "X-Svc-Hook-GUID": delivery.destination_id,
    "X-Svc-Hook-Event": delivery.event_type,
  }),
  disable: async (db, delivery) => {
    const result = await db
      .updateTable("service_hooks")
      .set({ status: "disabled" })
      .where("id", "=", delivery.destination_id)
      .where("status", "=", "active")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
};
