import type { NormalizedEvent } from "../../event-store/index.js";

/**
 * An event's row text in `ingest_queue`. When the payload is exactly the JSON text it arrived as
 * (`payloadText`), the derived fields are serialised and that text spliced in as the payload
 * (serialising it again cost ~20 µs of an acknowledgement: docs/performance.md, "The accept path
 * after wire replies and spliced queue text"). The digest parses it like any other queued event.
 */
export function queuedText(event: NormalizedEvent, payloadText: string | null): string {
  if (payloadText === null) return JSON.stringify(event);
  const { payload: _payload, ...derived } = event;
  // Dates as their text already: an object with toJSON sends V8's JSON.stringify down its slow path.
  const serializable = { ...derived, timestamp: event.timestamp.toISOString(), received: event.received.toISOString() };
  return `${JSON.stringify(serializable).slice(0, -1)},"payload":${payloadText}}`;
}
