import type { DestinationHandler } from "../../delivery/destinations.js";
import { hexSignature } from "../../delivery/signing.js";
import { truncateUtf8 } from "../../delivery/truncate.js";
import { recordAppRequests } from "../installations/index.js";

/** Bytes of UTF-8 kept of each body in the app's request log (docs/webhooks.md, "Delivery": 1 KiB). */
const LOG_BODY_LIMIT = 1024;

/**
 * App webhook deliveries: the seed's `Svc-Hook-*` headers and `Request-ID` (the delivery id,
 * stable across retries), and Sentry's `Sentry-Hook-*` names beside them for an app that opted in
 * (same values: Sentry signs the body alone with the client secret too); each attempt goes to the
 * app's request log (never secrets or signatures); disabling turns off the app's webhooks.
 */
export const appWebhookDestination: DestinationHandler = {
  type: "app",
  headers: (delivery, timestamp) => {
    const signature = hexSignature(delivery.secret, delivery.body);
    return {
      "Request-ID": delivery.id,
      "Svc-Hook-Resource": delivery.resource,
      "Svc-Hook-Timestamp": String(timestamp),
      "Svc-Hook-Signature": signature,
      ...(delivery.sentry_hook_headers && {
        "Sentry-Hook-Resource": delivery.resource,
        "Sentry-Hook-Timestamp": String(timestamp),
        "Sentry-Hook-Signature": signature,
      }),
    };
  },
  onAttempts: async (db, attempts, now) => {
    const requests = attempts.map(({ delivery, result }) => ({
      app_id: Number(delivery.destination_id),
      organization_id: delivery.organization_id,
      delivery_id: delivery.id,
      attempt: delivery.attempts,
      event_type: delivery.event_type,
      webhook_url: delivery.url,
      response_code: result.status,
      is_error: !(result.status >= 200 && result.status < 300),
      request_body: truncateUtf8(delivery.body, LOG_BODY_LIMIT),
      response_body: truncateUtf8(result.error ?? result.body, LOG_BODY_LIMIT),
      date_created: now,
    }));
    await recordAppRequests(db, requests);
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
