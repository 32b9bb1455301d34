import type { Delivery } from "../../db/schema.js";
import { isoDate } from "../../http/format.js";

/** A delivery as the listing shows it: never its secret, body or signature. */
export function serializeDelivery(delivery: Delivery) {
  return {
    id: delivery.id,
    destinationType: delivery.destination_type,
    destinationId: delivery.destination_id,
    eventType: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    lastResponseCode: delivery.last_response_code,
    lastError: delivery.last_error,
    dateCreated: isoDate(delivery.date_created),
    // Only a pending delivery has a next attempt; a finished one keeps a stale timestamp internally.
    nextAttemptAt: delivery.status === "pending" ? isoDate(delivery.next_attempt_at) : null,
    dateFinished: delivery.date_finished ? isoDate(delivery.date_finished) : null,
  };
}
