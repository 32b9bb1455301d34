import type { DestinationHandler } from "../../delivery/destinations.js";
import { hexSignature } from "../../delivery/signing.js";

const LOG_BODY_LIMIT = 1024;

/**
 * App webhook deliveries: the seed's `Svc-Hook-*` headers and `Request-ID` (the delivery id,
 * stable across retries); each attempt goes to the app's request log (never secrets or
 * signatures); disabling turns off the app's webhooks.
 */
export const appWebhookDestination: DestinationHandler = {
  type: "app",
  headers: (delivery, timestamp) => ({
    "Request-ID": delivery.id,
    "Svc-Hook-Resource": delivery.resource,
    "Svc-Hook-Timestamp": String(timestamp),
    "Svc-Hook-Signature": hexSignature(delivery.secret, delivery.body),
  }),
  onAttempts: async (db, attempts, now) => {
    // installation.deleted may outlive its app (deleted apps uninstall everywhere): no log then.
    const appIds = [...new Set(attempts.map(({ delivery }) => Number(delivery.destination_id)))];
    const existing = new Set((await db.selectFrom("apps").select("id").where("id", "in", appIds).execute()).map((app) => Number(app.id)));
    const rows = attempts
      .filter(({ delivery }) => existing.has(Number(delivery.destination_id)))
      .map(({ delivery, result }) => ({
        app_id: Number(delivery.destination_id),
        organization_id: delivery.organization_id,
        delivery_id: delivery.id,
        attempt: delivery.attempts,
        event_type: delivery.event_type,
        webhook_url: delivery.url,
        response_code: result.status,
        is_error: !(result.status >= 200 && result.status < 300),
        request_body: delivery.body.slice(0, LOG_BODY_LIMIT),
        response_body: (result.error ?? result.body).slice(0, LOG_BODY_LIMIT),
        date_created: now,
      }));
    if (rows.length > 0) await db.insertInto("app_request_log").values(rows).execute();
  },
  disable: async (db, delivery) => {
    const result = await db
      .updateTable("apps")
      .set({ webhook_status: "disabled" })
      .where("id", "=", Number(delivery.destination_id))
      .where("webhook_status", "=", "active")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
};
