import { badRequest } from "../../../http/errors.js";
import type { Envelope } from "./envelope.js";
import { tooLarge } from "./errors.js";
import { INGEST_LIMITS } from "../limits/limits.js";

export type RawEvent = Record<string, unknown>;

/**
 * An event as it arrived: the parsed object and, while `event` is still exactly the parse of it,
 * the JSON text it came as (`source`; null once something changed the object). Storage can keep
 * that text as it is instead of serialising the event again.
 */
export interface ReceivedEvent {
  event: RawEvent;
  source: string | null;
}

const utf8 = new TextDecoder("utf-8");

/** One event's JSON (an `event` item or a `/store/` body): size-checked, must be an object. */
export function parseEventPayload(bytes: Uint8Array): ReceivedEvent {
  if (bytes.byteLength > INGEST_LIMITS.eventBytes) throw tooLarge("Event", INGEST_LIMITS.eventBytes);
  const source = utf8.decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw badRequest(`Invalid event: malformed JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badRequest("Invalid event: expected a JSON object");
  return { event: value as RawEvent, source };
}

/**
 * The error events of an envelope; every other item type is accepted and ignored, never a 400.
 * An event without its own `event_id` takes the envelope header's, as Relay does, so the id
 * the SDK logged is the id we store.
 */
export function eventsOf(envelope: Envelope): ReceivedEvent[] {
  const headerEventId = envelope.header.event_id;
  return envelope.items
    .filter((item) => item.header.type === "event")
    .map((item) => {
      const received = parseEventPayload(item.payload);
      const { event } = received;
      return event.event_id === undefined && typeof headerEventId === "string"
        ? { event: { ...event, event_id: headerEventId }, source: null }
        : received;
    });
}
