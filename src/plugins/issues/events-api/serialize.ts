import type { StoredEvent } from "../../../db/schema.js";
import { idString, isoDate } from "../../../http/format.js";
import { eventEntries } from "./entries.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Sentry's detailed event (api.md §4.1): the stored columns plus what the payload carries. */
export function serializeEvent(row: StoredEvent, neighbours: { next: string | null; previous: string | null }) {
  const payload = row.payload;
  const user = isObject(payload.user) ? payload.user : null;
  const sdk = isObject(payload.sdk) ? payload.sdk : null;
  return {
    id: row.event_id,
    eventID: row.event_id,
    groupID: idString(row.issue_id),
    projectID: idString(row.project_id),
    title: row.title,
    message: row.message,
    culprit: row.culprit,
    location: row.location,
    level: row.level,
    platform: row.platform,
    type: row.type,
    dateCreated: isoDate(row.timestamp),
    dateReceived: isoDate(row.received),
    environment: row.environment,
    release: row.release ? { version: row.release } : null,
    dist: row.dist,
    tags: row.tags.map(([key, value]) => ({ key, value })),
    user: user && { id: user.id ?? null, email: user.email ?? null, username: user.username ?? null, ip_address: user.ip_address ?? null, name: user.name ?? null },
    contexts: isObject(payload.contexts) ? payload.contexts : {},
    sdk: sdk && { name: sdk.name ?? null, version: sdk.version ?? null },
    fingerprints: row.hashes,
    metadata: {},
    size: row.size,
    nextEventID: neighbours.next,
    previousEventID: neighbours.previous,
    entries: eventEntries(payload),
  };
}
