import type { Insertable } from "kysely";
import type { DeliveriesTable } from "../../src/db/schema.js";

/**
 * A service-hook delivery row written straight into the outbox, for tests that need rows in a
 * given state or age (the destination does not exist: nothing here is meant to be sent).
 */
export function outboxRow(
  row: Pick<Insertable<DeliveriesTable>, "id" | "organization_id" | "status" | "next_attempt_at" | "date_created"> &
    Partial<Insertable<DeliveriesTable>>,
): Insertable<DeliveriesTable> {
  return {
    destination_type: "service_hook",
    destination_id: "0".repeat(32),
    url: "http://example.test/",
    secret: "s",
    event_type: "event.created",
    resource: "event.created",
    body: "{}",
    ...row,
  };
}
