import type { StoredEvent } from "../tables.js";
import { idString, isoDate } from "../../../http/format.js";
import { type EventMessage, type EventUser, normalizeEvent } from "../grouping/index.js";
import { resolveMessage } from "../grouping/message.js";
import { parseRawEvent } from "../grouping/raw-event.js";
import { eventEntries } from "./entries.js";
import { eventMeta } from "./meta.js";
import { bareRelease } from "./releases.js";
import type { ReleaseObjects } from "./release-port.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

export interface Neighbours {
  previous: string | null;
  next: string | null;
}

/** What the stored columns do not hold, derived again from the payload by ingestion's own rules. */
interface Derived {
  metadata: Record<string, unknown>;
  user: EventUser | null;
  message: EventMessage;
}

/**
 * Metadata and user are computed exactly as at ingest (the issue row only keeps its latest
 * event's metadata). The payload passed ingestion's checks, so this does not throw; should those
 * checks ever tighten, an old event is still shown, just without these fields.
 */
function derive(row: StoredEvent): Derived {
  try {
    const normalized = normalizeEvent(row.payload, { receivedAt: row.received, size: row.size });
    return {
      metadata: normalized.metadata,
      user: normalized.user,
      message: resolveMessage(parseRawEvent(row.payload)),
    };
  } catch {
    return { metadata: {}, user: null, message: { template: null, formatted: null } };
  }
}

function serializeUser(user: EventUser | null) {
  if (!user) return null;
  return {
    id: user.id ?? null,
    email: user.email ?? null,
    username: user.username ?? null,
    ip_address: user.ip_address ?? null,
    name: user.name ?? null,
    data: null,
  };
}

/** The SDK's name and version; `{}` when the event named none (Sentry's schema has no null here). */
function serializeSdk(sdk: unknown) {
  return isObject(sdk) ? { name: textOrNull(sdk.name), version: textOrNull(sdk.version) } : {};
}

/**
 * What ingestion repaired in the event (its payload's `errors`, grouping/sanitize.ts), in the shape
 * Sentry's event detail uses: `{type, message, data: {name, value?}}`.
 */
function serializeProcessingErrors(errors: unknown) {
  if (!Array.isArray(errors)) return [];
  return errors.filter(isObject).map((error) => ({
    type: textOrNull(error.type) ?? "unknown_error",
    message: textOrNull(error.reason) ?? textOrNull(error.type) ?? "",
    data: { name: textOrNull(error.name), ...("value" in error ? { value: error.value } : {}) },
  }));
}

/**
 * Sentry's detailed event (docs/sentry-compatibility.md, "Response shapes"): the stored columns
 * plus what the payload carries, and its release as `releases` (read/releases.ts) has it.
 */
export function serializeEvent(row: StoredEvent, neighbours: Neighbours, releases: ReleaseObjects = new Map()) {
  const { payload } = row;
  const derived = derive(row);
  const entries = eventEntries(payload, derived.message);
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
    release: row.release === null ? null : (releases.get(row.release) ?? bareRelease(row.release)),
    dist: row.dist,
    tags: row.tags.map(([key, value]) => ({ key, value })),
    user: serializeUser(derived.user),
    contexts: isObject(payload.contexts) ? payload.contexts : {},
    sdk: serializeSdk(payload.sdk),
    fingerprints: row.hashes,
    // Sentry's metadata always names the title (its `materialize_metadata`).
    metadata: {
      ...derived.metadata,
      title: typeof derived.metadata.title === "string" ? derived.metadata.title : row.title,
    },
    size: row.size,
    nextEventID: neighbours.next,
    previousEventID: neighbours.previous,
    entries,
    errors: serializeProcessingErrors(payload.errors),
    // The SDK's `modules` (Sentry shows them as packages) and `extra` (Sentry's `context`).
    packages: isObject(payload.modules) ? payload.modules : {},
    context: isObject(payload.extra) ? payload.extra : {},
    userReport: null,
    // Sentry's issue-platform occurrence, SDK upgrade hints and resolving commits: Faultline has none.
    occurrence: null,
    sdkUpdates: [],
    resolvedWith: [],
    _meta: eventMeta(payload, entries, row.tags),
  };
}

/**
 * An item of an event list (an issue's or a project's): the short item, or with `full` the
 * detailed event keeping the short item's own fields too (Sentry's schema requires them).
 */
export function serializeEventListItem(row: StoredEvent, full: boolean, releases: ReleaseObjects) {
  return full
    ? { ...serializeEvent(row, { previous: null, next: null }, releases), "event.type": row.type, crashFile: null }
    : serializeIssueEventItem(row);
}

/**
 * An item of an issue's event list (Sentry's `SimpleEventSerializer`): the stored columns, the
 * user and the metadata derived from the payload as at ingest.
 */
export function serializeIssueEventItem(row: StoredEvent) {
  const derived = derive(row);
  return {
    id: row.event_id,
    "event.type": row.type,
    groupID: idString(row.issue_id),
    eventID: row.event_id,
    projectID: idString(row.project_id),
    message: row.message,
    title: row.title,
    location: row.location,
    culprit: row.culprit,
    user: serializeUser(derived.user),
    tags: row.tags.map(([key, value]) => ({ key, value })),
    platform: row.platform,
    dateCreated: isoDate(row.timestamp),
    crashFile: null,
    metadata: {
      ...derived.metadata,
      title: typeof derived.metadata.title === "string" ? derived.metadata.title : row.title,
    },
  };
}
