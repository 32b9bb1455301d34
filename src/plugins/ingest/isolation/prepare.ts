import { ApiError } from "../../../http/errors.js";
import { scrubEvent, type ScrubbingSettings } from "../../data-scrubbing/index.js";
import { filterEvent, type FilterReason, type InboundFilterSettings } from "../../inbound-filters/index.js";
import {
  applyGroupingRules,
  type GroupingRules,
  type NormalizedEvent,
  normalizeEvent,
} from "../../event-store/index.js";
import { decompressBody } from "../accept/decompress.js";
import { parseEnvelope } from "../accept/envelope.js";
import type { EnvelopeItemInput } from "../accept/item-handlers.js";
import { filteredEventId } from "../accept/filtered-id.js";
import { DISCARDED_HASH, isDiscarded } from "../accept/discarded-hash.js";
import { eventsOf, parseEventPayload, type RawEvent, type ReceivedEvent } from "../accept/event-payload.js";
import { inferUserIp, normalizeAddress } from "../accept/infer-ip.js";
import { INGEST_LIMITS } from "../limits/limits.js";
import { clientDiscardsOf, type ClientDiscard } from "../outcomes/client-report.js";
import { queuedText } from "../queue/queued-text.js";

/**
 * What a project's settings do to its events at accept time, read (cached) by the host's thread
 * and passed with each job so that a worker thread needs no database; applied in
 * {@link applyProjectSettings}.
 */
export interface ProjectIngestSettings {
  /** The project's inbound filters (plain data, `RegExp`s survive structured cloning); null: none apply. */
  filters: InboundFilterSettings | null;
  /** The project's data scrubbing (docs/data-scrubbing.md): applied before the row's text is made. */
  scrubbing: ScrubbingSettings;
  /** The grouping hashes of the project's discarded issues (docs/issues.md, "Discard"); absent or empty: none. */
  discardedHashes?: ReadonlySet<string> | null;
  /** The project's grouping rules (plain data), sent only with discarded hashes: a rule-made hash is what a tombstone holds. */
  groupingRules?: GroupingRules | null;
}

/** One ingest request's body, to be turned into queue rows (in a worker thread or inline). */
export interface PrepareJob {
  /** `envelope`: an envelope of items; `store`: one JSON event (the legacy endpoint). */
  kind: "envelope" | "store";
  /** Envelope item types other than events that a plugin keeps (accept/item-handlers.ts): sent back as they are. */
  itemTypes: readonly string[];
  body: Uint8Array;
  contentEncoding: string | null;
  receivedAtMs: number;
  /** The sender's address as the adapter resolved it, for `{{auto}}` IP inference. */
  clientAddress: string | null;
  settings: ProjectIngestSettings;
}

/** An event ready for `ingest_queue`: its id (what the SDK is told) and its row text. */
export interface PreparedEvent {
  eventId: string;
  text: string;
}

/** A refusal of the request as an `ApiError` would render it, in a form that crosses threads. */
export interface PrepareFailure {
  ok: false;
  status: number;
  detail: string;
  extra: Record<string, unknown>;
  headers: Record<string, string>;
  /** Events to count as `invalid` (the outcome the inline path records); null: none counted. */
  invalidEvents: number | null;
}

/**
 * An event the project's inbound filters refused, or whose grouping hash a discarded issue's
 * tombstone holds: counted as `filtered` with the reason, never queued.
 */
export interface FilteredEvent {
  /** What a `/store/` request is answered with, as if it had been accepted. */
  eventId: string;
  reason: FilterReason | typeof DISCARDED_HASH;
}

/** The request's rows, the events its filters refused, the client's reported discards and its other kept items. */
export interface PrepareSuccess {
  ok: true;
  discards: ClientDiscard[];
  events: PreparedEvent[];
  filtered: FilteredEvent[];
  /** The items of `job.itemTypes`, each payload copied out of the body (a view would carry the whole body across). */
  items: EnvelopeItemInput[];
  envelopeHeader: Record<string, unknown>;
}

export type PrepareResult = PrepareSuccess | PrepareFailure;

/**
 * Decompress → parse → validate → the project's settings → normalise → queue row text: every CPU
 * step of accepting a request once its DSN key is known, and none that needs the database. Bad
 * input is a {@link PrepareFailure} (a 4xx), counted as the inline path counts it.
 */
export async function prepareIngest(job: PrepareJob): Promise<PrepareResult> {
  let invalidEvents: number | null = job.kind === "store" ? 1 : null;
  try {
    if (job.kind === "store") {
      const event = parseEventPayload(await decompress(job, INGEST_LIMITS.eventBytes, "Event"));
      return { ok: true, discards: [], items: [], envelopeHeader: {}, ...prepareEvents([event], job) };
    }
    const envelope = parseEnvelope(await decompress(job, INGEST_LIMITS.envelopeBytes, "Envelope"));
    invalidEvents = envelope.items.filter((item) => item.header.type === "event").length;
    const items = envelope.items
      .filter((item) => job.itemTypes.includes(item.header.type))
      .map((item) => ({ type: item.header.type, header: item.header, payload: item.payload.slice() }));
    return {
      ok: true,
      discards: clientDiscardsOf(envelope.items),
      items,
      envelopeHeader: envelope.header,
      ...prepareEvents(eventsOf(envelope), job),
    };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const { status, detail, extra, headers } = error;
    return { ok: false, status, detail, extra, headers, invalidEvents };
  }
}

function decompress(job: PrepareJob, bytes: number, what: string): Promise<Uint8Array> {
  return decompressBody(job.body, job.contentEncoding, { bytes, what });
}

function prepareEvents(received: ReceivedEvent[], job: PrepareJob): Pick<PrepareSuccess, "events" | "filtered"> {
  const address = normalizeAddress(job.clientAddress);
  const receivedAt = new Date(job.receivedAtMs);
  const events: PreparedEvent[] = [];
  const filtered: FilteredEvent[] = [];
  for (const { event: raw, source } of received) {
    const applied = applyProjectSettings(inferUserIp(raw, address), job.settings);
    if ("reason" in applied) {
      filtered.push({ eventId: filteredEventId(raw), reason: applied.reason });
      continue;
    }
    const { event, scrubbed } = applied;
    // The arrival text is the row's payload only while the object is still exactly its parse
    // (never once scrubbing changed it: the text would still hold the secret).
    const text = event === raw && !scrubbed ? source : null;
    const size = text === null ? undefined : Buffer.byteLength(text);
    const normalized = normalizeEvent(event, { receivedAt, size });
    // The hashes exist here anyway: a tombstone costs this thread one set lookup per event (and
    // the project's grouping rules, when it has both, a regrouping).
    if (isDiscarded(storedHashes(normalized, job.settings), job.settings.discardedHashes)) {
      filtered.push({ eventId: normalized.eventId, reason: DISCARDED_HASH });
      continue;
    }
    events.push({
      eventId: normalized.eventId,
      text: queuedText(normalized, normalized.payload === event ? text : null),
    });
  }
  return { events, filtered };
}

/** The hashes the digest will store the event under: its own, or its project's grouping rules' (only asked with tombstones). */
function storedHashes(event: NormalizedEvent, settings: ProjectIngestSettings): readonly string[] {
  if (!settings.discardedHashes?.size || !settings.groupingRules) return event.hashes;
  return applyGroupingRules(event, settings.groupingRules).hashes;
}

/**
 * The project's accept-time rules, in the inline path's order (`IngestService`, then the
 * scrubbing sink): the inbound filters decide on the event as received (after `{{auto}}` IP
 * inference), then a kept event is scrubbed.
 */
function applyProjectSettings(
  event: RawEvent,
  settings: ProjectIngestSettings,
): { event: RawEvent; scrubbed: boolean } | { reason: FilterReason } {
  const reason = settings.filters === null ? null : filterEvent(event, settings.filters);
  if (reason !== null) return { reason };
  const scrubbed = scrubEvent(event, settings.scrubbing);
  return { event: scrubbed.event as RawEvent, scrubbed: scrubbed.changed };
}
