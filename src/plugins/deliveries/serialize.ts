import type { DestinationRegistry } from "../../delivery/destinations.js";
import type { Delivery, DeliveryAttempt } from "../../db/schema.js";
import { idString, isoDate } from "../../http/format.js";
import type { DeliveryRow } from "./repository.js";
import type { DeliveryState } from "./schemas.js";

/** A recorded outcome that is not a 2xx (0: nothing answered) leaves a pending delivery retrying. */
export function deliveryState(delivery: Delivery): DeliveryState {
  if (delivery.status === "delivered" || delivery.status === "cancelled") return delivery.status;
  if (delivery.status === "failed") return "dead";
  const code = delivery.last_response_code;
  return code !== null && (code < 200 || code >= 300) ? "retrying" : "queued";
}

/** 0 is how the sender says nothing answered; the API says it with no code at all. */
const responseCode = (code: number | null) => (code === 0 ? null : code);

/**
 * What a delivery is sent to: kind, id, the address it is sent to (as its destination lets it be
 * shown: a chat webhook URL is a credential), and a name a person recognises.
 */
function serializeTarget(delivery: DeliveryRow, displayUrl: string) {
  const project =
    delivery.hook_project_id === null || delivery.hook_project_slug === null
      ? null
      : { id: idString(delivery.hook_project_id), slug: delivery.hook_project_slug };
  // Service hooks have no name of their own (as in Sentry): their project names them.
  const name = delivery.destination_type === "app" ? delivery.app_name : project && `${project.slug} service hook`;
  return { type: delivery.destination_type, id: delivery.destination_id, url: displayUrl, name, project };
}

/** A delivery as the listing shows it: never its secret, body or signature. */
export function serializeDelivery(delivery: DeliveryRow, destinations: DestinationRegistry) {
  const displayUrl = destinations.find(delivery.destination_type)?.displayUrl?.(delivery) ?? delivery.url;
  return {
    id: delivery.id,
    target: serializeTarget(delivery, displayUrl),
    /** The same as `target.type` / `target.id` (kept from before `target`). */
    destinationType: delivery.destination_type,
    destinationId: delivery.destination_id,
    eventType: delivery.event_type,
    /** The stored lifecycle: `pending` until it is delivered, given up (`failed`) or cancelled. */
    status: delivery.status,
    state: deliveryState(delivery),
    attempts: delivery.attempts,
    lastAttemptAt: delivery.last_attempt_at ? isoDate(delivery.last_attempt_at) : null,
    lastResponseCode: responseCode(delivery.last_response_code),
    lastError: delivery.last_error,
    lastDurationMs: delivery.last_duration_ms,
    dateCreated: isoDate(delivery.date_created),
    // Only a pending delivery has a next attempt; a finished one keeps a stale timestamp internally.
    nextAttemptAt: delivery.status === "pending" ? isoDate(delivery.next_attempt_at) : null,
    dateFinished: delivery.date_finished ? isoDate(delivery.date_finished) : null,
  };
}

/** One attempt of a delivery's history, its address shown as the delivery's. */
export function serializeAttempt(attempt: DeliveryAttempt, displayUrl: string) {
  return {
    attempt: attempt.attempt,
    date: isoDate(attempt.date_created),
    url: displayUrl,
    responseCode: attempt.response_code,
    durationMs: attempt.duration_ms,
    error: attempt.error,
  };
}
