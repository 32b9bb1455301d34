import { exceptionChain } from "./exceptions.js";
import { groupingHashes } from "./fingerprint.js";
import { resolveMessage } from "./message.js";
import { parseRawEvent } from "./raw-event.js";
import { normalizeEventId, normalizeLevel, normalizeTimestamp } from "./scalars.js";
import { normalizeTags } from "./tags.js";
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
 * Turns an event as an SDK sent it into everything ingestion stores and groups by (api.md §6.2
 * to §6.4). Pure: no clock (the receive time is passed in) and no database.
 * Throws a 400 `ApiError` ("Invalid event: …") when `raw` is not an event object.
 */
export function normalizeEvent(raw: unknown, options: NormalizeOptions): NormalizedEvent {
  const event = parseRawEvent(raw);
  const level = normalizeLevel(event.level);
  const environment = optionalText(event.environment, MAX_NAME_LENGTH);
  const release = optionalText(event.release, MAX_NAME_LENGTH);
  const platform = optionalText(event.platform, MAX_NAME_LENGTH);
  const user = normalizeUser(event.user);
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
    timestamp: normalizeTimestamp(event.timestamp, options.receivedAt),
    received: options.receivedAt,
    level,
    platform,
    environment,
    release,
    dist: optionalText(event.dist, MAX_NAME_LENGTH),
    type: exceptions.length > 0 ? "error" : "default",
    ...labels,
    message: message.formatted ?? exceptions.flatMap((exception) => exception.value ?? []).join("\n"),
    tags: normalizeTags(event.tags, { level, environment, release }),
    user,
    userKey: userKeyOf(user),
    hashes: groupingHashes({ fingerprint: event.fingerprint ?? null, exceptions, message, title: labels.title }),
    payload: raw as Record<string, unknown>,
    size: options.size ?? Buffer.byteLength(JSON.stringify(raw)),
  };
}
