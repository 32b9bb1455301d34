import { randomUUID } from "node:crypto";

// Its own module, free of plugin imports: the service loads without the container (unit tests),
// and the worker thread answers filtered events the same way.

/** The id a filtered `/store/` event is answered with: its own when it has a valid one. */
export function filteredEventId(event: Record<string, unknown>): string {
  const id = typeof event.event_id === "string" ? event.event_id.replaceAll("-", "").toLowerCase() : "";
  return /^[0-9a-f]{32}$/.test(id) ? id : randomUUID().replaceAll("-", "");
}
