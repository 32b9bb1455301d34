import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { TransactionScope } from "../../db/transaction.js";
import { TransactionMemo } from "../../db/transaction-memo.js";
import type { Outbox } from "../../delivery/outbox.js";
import type { Actor } from "../../events/event-bus.js";

export type AppWebhookCategory =
  "issue" | "error" | "comment" | "installation" | "metric_alert" | "event_alert" | "feedback";

export interface Subscriber {
  installationUuid: string;
  appId: number;
  webhookUrl: string;
  clientSecret: string;
  /** The app asked for Sentry's header names too. */
  sentryHookHeaders: boolean;
}

export interface AppWebhook {
  organizationId: number;
  category: AppWebhookCategory;
  /** `issue.created`, `error.created`, … */
  eventType: string;
  actor: Actor;
  /** The payload's `data`: built once, and only when some installation subscribes (most events have none). */
  data: () => unknown;
  /** Send only to this installation (installation.* events). */
  onlyInstallation?: string;
}

/**
 * Turns domain events into app webhook deliveries for every installation in the organization
 * whose app subscribes to the category. Subscribers are looked up once per transaction and
 * category, so a batch of ingested events costs one query, not one per event.
 */
export class AppWebhookDispatcher {
  readonly #subscribersMemo = new TransactionMemo<string, Promise<Subscriber[]>>();

  constructor(private readonly outbox: Outbox) {}

  async dispatch(scope: TransactionScope, webhook: AppWebhook): Promise<void> {
    const subscribers = (await this.#subscribers(scope, webhook.organizationId, webhook.category)).filter(
      (s) => webhook.onlyInstallation === undefined || s.installationUuid === webhook.onlyInstallation,
    );
    if (subscribers.length === 0) return;
    const data = webhook.data();
    await this.outbox.enqueue(
      scope,
      subscribers.map((subscriber) => ({
        organizationId: webhook.organizationId,
        destinationType: "app" as const,
        destinationId: String(subscriber.appId),
        installationUuid: subscriber.installationUuid,
        url: subscriber.webhookUrl,
        secret: subscriber.clientSecret,
        sentryHookHeaders: subscriber.sentryHookHeaders,
        eventType: webhook.eventType,
        resource: webhook.category,
        body: () => ({
          action: webhook.eventType.slice(webhook.eventType.indexOf(".") + 1),
          installation: { uuid: subscriber.installationUuid },
          data,
          actor: webhook.actor,
        }),
      })),
    );
  }

  #subscribers(scope: TransactionScope, organizationId: number, category: AppWebhookCategory): Promise<Subscriber[]> {
    return this.#subscribersMemo.get(scope, `${organizationId}:${category}`, () =>
      findSubscribers(scope.trx, organizationId, category),
    );
  }
}

async function findSubscribers(
  db: Kysely<Database>,
  organizationId: number,
  category: AppWebhookCategory,
): Promise<Subscriber[]> {
  const rows = await db
    .selectFrom("app_installations as i")
    .innerJoin("apps as a", "a.id", "i.app_id")
    .select(["i.uuid", "a.id", "a.webhook_url", "a.client_secret", "a.sentry_hook_headers"])
    .where("i.organization_id", "=", organizationId)
    .where("a.webhook_status", "=", "active")
    .where("a.webhook_url", "is not", null)
    .where((eb) => eb(eb.val<string>(category), "=", eb.fn.any("a.events")))
    .execute();
  return rows.map((row) => ({
    installationUuid: row.uuid,
    appId: row.id,
    webhookUrl: row.webhook_url as string,
    clientSecret: row.client_secret,
    sentryHookHeaders: row.sentry_hook_headers,
  }));
}
