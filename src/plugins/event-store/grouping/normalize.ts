import { exceptionChain } from "./exceptions.js";
import { groupingHashes } from "./fingerprint.js";
import { resolveMessage } from "./message.js";
import { parseRawEvent } from "./raw-event.js";
import { type EventProcessingError, sanitizeEventPayload } from "./sanitize.js";
import { normalizeEventId, normalizeLevel, normalizeTimestamp } from "./scalars.js";
import { contextTags, eventSearchValues } from "./search-values.js";
import { mechanismTags, normalizeTags } from "./tags.js";
import { optionalText } from "./text.js";
import { describeEvent } from "./title.js";
import type { NormalizedEvent } from "./types.js";
import { normalizeUser, userKeyOf } from "./user.js";

export interface NormalizeOptions {
  /** When the event arrived: the event time when the client sent none (or a wrong one). */
  receivedAt: Date;
  /** Byte size of the event as received; measured from the parsed JSON when not given. */
  size?: number;
}

/** Sentry's limit for environment, release and dist names (longer ones are cut, not rejected). */
const MAX_NAME_LENGTH = 200;

/**
 * Turns an event as an SDK sent it into everything ingestion stores and groups by (docs/issues.md,
 * "From event to issue"). Pure: no clock (the receive time is passed in) and no database.
 * First repaired as Relay would (sanitize.ts: invalid characters, depth, sizes; timestamps out of
 * range), so whatever is derived and stored can be written; the repairs are listed in the
 * payload's `errors`. Throws a 400 `ApiError` ("Invalid event: …") only when `raw` is not an
 * event object.
 */
export function normalizeEvent(raw: unknown, options: NormalizeOptions): NormalizedEvent {
  const sanitized = sanitizeEventPayload(raw);
  const event = parseRawEvent(sanitized.value);
  const time = normalizeTimestamp(event.timestamp, options.receivedAt);
  const payload = withErrors(
    sanitized.value as Record<string, unknown>,
    time.error ? [...sanitized.errors, time.error] : sanitized.errors,
    time.error ? time.timestamp : null,
  );
  const level = normalizeLevel(event.level);
  const environment = optionalText(event.environment, MAX_NAME_LENGTH);
  const release = optionalText(event.release, MAX_NAME_LENGTH);
  const platform = optionalText(event.platform, MAX_NAME_LENGTH);
  const user = normalizeUser(event.user);
  const userKey = userKeyOf(user);
  const exceptions = exceptionChain(event.exception);
  const message = resolveMessage(event);
  const labels = describeEvent({
    platform,
    exceptions,
    message: message.formatted,
    culprit: event.culprit,
    transaction: event.transaction,
    requestUrl: event.request?.url,
  });
  return {
    eventId: normalizeEventId(event.event_id),
    timestamp: time.timestamp,
    received: options.receivedAt,
    level,
    platform,
    environment,
    release,
    dist: optionalText(event.dist, MAX_NAME_LENGTH),
    type: exceptions.length > 0 ? "error" : "default",
    ...labels,
    message: message.formatted ?? exceptions.flatMap((exception) => exception.value ?? []).join("\n"),
    tags: normalizeTags(
      event.tags,
      { level, environment, release, ...mechanismTags(exceptions) },
      contextTags(event, userKey),
    ),
    searchValues: eventSearchValues(user, exceptions),
    user,
    userKey,
    hashes: groupingHashes({ fingerprint: event.fingerprint ?? null, exceptions, message, title: labels.title }),
    payload,
    size: options.size ?? Buffer.byteLength(JSON.stringify(payload)),
  };
}

/**
 * The payload with this processing's errors appended to any it already lists (as Relay does), and
 * a replaced timestamp written back as seconds. Unchanged (the same object) when nothing was repaired.
 */
function withErrors(
  payload: Record<string, unknown>,
  errors: EventProcessingError[],
  timestamp: Date | null,
): Record<string, unknown> {
  if (errors.length === 0) return payload;
  const previous = Array.isArray(payload.errors) ? payload.errors : [];
  return {
    ...payload,
    ...(timestamp ? { timestamp: timestamp.getTime() / 1000 } : {}),
    errors: [...previous, ...errors],
  };
}
