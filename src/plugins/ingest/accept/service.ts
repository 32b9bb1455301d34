import type { Clock } from "../../../clock.js";
import { ApiError, notFound } from "../../../http/errors.js";
import type { FilterReason, InboundFilterSettings } from "../../inbound-filters/index.js";
import type { EventSink, ProjectRef } from "../../event-store/index.js";
import type { QuotaDecision } from "../../quotas/index.js";
import { decompressBody } from "./decompress.js";
import { publicKeyFromDsn, publicKeyFromRequest } from "./dsn-auth.js";
import { parseEnvelope } from "./envelope.js";
import { organizationThrottled, overloaded, queueFull, rateLimited } from "./errors.js";
import { eventsOf, parseEventPayload, type ReceivedEvent } from "./event-payload.js";
import { clientDiscardsOf } from "../outcomes/client-report.js";
import type { Outcome, OutcomeRecorder } from "../outcomes/recorder.js";
import { inferUserIp, normalizeAddress } from "./infer-ip.js";
import { INGEST_LIMITS } from "../limits/limits.js";
import { filteredEventId } from "./filtered-id.js";
import { DISCARDED_HASH, isDiscarded } from "./discarded-hash.js";
import type {
  FilteredEvent,
  PrepareJob,
  PreparedEvent,
  PrepareResult,
  ProjectIngestSettings,
} from "../isolation/prepare.js";
import type { ProjectKeyRecord, ProjectKeyResolver } from "./project-keys.js";
import type { SharedRateLimiter } from "../limits/rate-limit.js";
import { dispatchItems, type EnvelopeItemHandler, type EnvelopeItemInput, handledItemTypes } from "./item-handlers.js";

/** What the ingest routes hand over from a request. */
export interface IngestInput {
  /** The `{project_id}` path segment, unvalidated. */
  projectId: string;
  headers: Headers;
  query: URLSearchParams;
  body: Uint8Array;
  /** The sender's address as the adapter resolved it (trusted proxies applied), null when unknown. */
  clientAddress?: string | null;
}

/** Back-pressure of queued ingest: room for a request's events in a bounded queue. */
export interface IngestAdmission {
  /** Reserves room for `events`; false when the queue is full. */
  admit(events: number, nowMs: number): Promise<boolean>;
  /** Gives back room reserved for events that were not queued after all. */
  release(events: number): void;
  /** True when no event fits by the current estimate: the request is refused before its body is parsed. */
  isFull(nowMs: number): boolean;
}

/** Load shedding of queued ingest: whether this process's event loop is too busy to take more. */
export interface OverloadSignal {
  readonly overloaded: boolean;
}

/** What besides the key decides whether events are accepted: the project's inbound filters, the organization's quotas. */
export interface AcceptPolicy {
  /** The project's inbound filters, cached per project (see `InboundFilterService`). */
  filterSettings(projectId: number): Promise<InboundFilterSettings>;
  /** Whether the settings refuse an event, and why: the inbound-filters plugin's pure `filterEvent` (no I/O). */
  filterEvent(event: Record<string, unknown>, settings: InboundFilterSettings): FilterReason | null;
  /** Takes `events` from the organization's budgets (see `OrganizationQuotas`). */
  organizationQuota(organizationId: number, events: number, nowMs: number): Promise<QuotaDecision>;
  /** The grouping hashes of the project's discarded issues, cached per project (see `IssueTombstones`); mostly empty. */
  discardedHashes?(projectId: number): Promise<ReadonlySet<string>>;
  /** The grouping hashes the event will be stored under (after the project's scrubbing); asked only when some are discarded. */
  groupingHashes?(projectId: number, event: Record<string, unknown>): Promise<readonly string[]>;
}

/**
 * Threaded ingest (`ingest.isolation: "threads"`, docs/ingest.md): the CPU half of accepting a
 * request runs in worker threads, the queue's group commit on this thread.
 */
export interface IngestIsolation {
  /** True when the threads' job queues are full: refused before anything is parsed. */
  readonly saturated: boolean;
  /** Decompress → parse → validate → the project's filters → normalise → queue row text, off this thread. */
  run(job: PrepareJob): Promise<PrepareResult>;
  /** The project's accept-time settings (filters, scrubbing, cached), sent with each job. */
  settingsOf(projectId: number): Promise<ProjectIngestSettings>;
  /** Appends prepared rows to `ingest_queue`; resolves with their ids once committed. */
  appendPrepared(project: ProjectRef, events: readonly PreparedEvent[]): Promise<string[]>;
}

/** How long an SDK is told to wait when the queue is full: the digest empties hundreds of events per batch. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 1;
/** Overload is decided per 100 ms window; a second lets a storm's backlog clear. */
const OVERLOADED_RETRY_AFTER_SECONDS = 1;

/** Authenticates, unpacks and rate-limits what SDKs send, then hands error events to the sink. */
export class IngestService {
  constructor(
    private readonly keys: Pick<ProjectKeyResolver, "authenticate">,
    private readonly sink: EventSink,
    private readonly limiter: Pick<SharedRateLimiter, "consume">,
    private readonly clock: Clock,
    private readonly outcomes: Pick<OutcomeRecorder, "record">,
    /** Present in queued mode only: direct ingest's latency is its back-pressure. */
    private readonly admission?: IngestAdmission,
    /** Present when `ingest.shedAtEventLoopDelayMs` is set (queued mode). */
    private readonly overload?: OverloadSignal,
    private readonly policy?: AcceptPolicy,
    /** Present when `ingest.isolation` is `"threads"` and worker threads are available (queued mode). */
    private readonly isolation?: IngestIsolation,
    /** The plugins keeping envelope items other than events (check-ins, feedback, sessions). */
    private readonly itemHandlers: readonly EnvelopeItemHandler[] = [],
  ) {
    this.#itemTypes = handledItemTypes(itemHandlers);
  }

  /** The item types some handler takes (attachments included when there is one). */
  readonly #itemTypes: Set<string>;

  /** `POST /api/{project_id}/envelope/` → `{id}` of the (first) event, `{}` without one. */
  async ingestEnvelope(input: IngestInput): Promise<{ id?: string }> {
    const projectId = parseProjectId(input.projectId);
    const receivedAt = this.clock.now();
    const claimedKey = publicKeyFromRequest(input.headers, input.query);
    // With the key outside the body, reject bad senders before spending CPU on decompression.
    const earlyKey = claimedKey === null ? null : await this.keys.authenticate(claimedKey, projectId);
    if (earlyKey) this.#refuseBeforeParsing(earlyKey, receivedAt);
    // A key only inside the envelope is known after the parse: such requests stay inline.
    if (earlyKey && this.isolation) {
      const { accepted, items, envelopeHeader } = await this.#ingestIsolated(
        this.isolation,
        earlyKey,
        "envelope",
        input,
        receivedAt,
      );
      await this.#dispatchItems(earlyKey, envelopeHeader, items, input, receivedAt);
      return accepted[0] === undefined ? {} : { id: accepted[0] };
    }
    const bytes = await decompressBody(input.body, input.headers.get("content-encoding"), {
      bytes: INGEST_LIMITS.envelopeBytes,
      what: "Envelope",
    });
    const envelope = parseEnvelope(bytes);
    const key = earlyKey ?? (await this.keys.authenticate(publicKeyFromDsn(envelope.header.dsn), projectId));
    for (const discard of clientDiscardsOf(envelope.items))
      this.#count(key, "client_discard", discard.reason, discard.quantity, receivedAt, discard.category);
    const events = await this.#refusedAsInvalid(
      key,
      envelope.items.filter((item) => item.header.type === "event").length,
      receivedAt,
      async () => eventsOf(envelope),
    );
    const [first] = await this.#captureReceived(key, withInferredIps(events, input), receivedAt);
    const items = envelope.items
      .filter((item) => this.#itemTypes.has(item.header.type))
      .map((item) => ({ type: item.header.type, header: item.header, payload: item.payload }));
    await this.#dispatchItems(key, envelope.header, items, input, receivedAt);
    return first === undefined ? {} : { id: first };
  }

  /** The envelope's other items to the plugins that keep them, after its events were accepted. */
  #dispatchItems(
    key: ProjectKeyRecord,
    envelopeHeader: Record<string, unknown>,
    items: readonly EnvelopeItemInput[],
    input: IngestInput,
    receivedAt: Date,
  ): Promise<void> {
    return dispatchItems(this.itemHandlers, items, {
      project: key.project,
      receivedAt,
      clientAddress: input.clientAddress ?? null,
      envelopeHeader,
      outcome: (category, outcome, reason, quantity) =>
        this.#count(key, outcome, reason, quantity, receivedAt, category),
    });
  }

  /** `POST /api/{project_id}/store/` (legacy): one JSON event → `{id}`. */
  async ingestStore(input: IngestInput): Promise<{ id: string }> {
    const projectId = parseProjectId(input.projectId);
    const receivedAt = this.clock.now();
    const key = await this.keys.authenticate(publicKeyFromRequest(input.headers, input.query), projectId);
    this.#refuseBeforeParsing(key, receivedAt);
    if (this.isolation) {
      const { accepted, filtered } = await this.#ingestIsolated(this.isolation, key, "store", input, receivedAt);
      // A filtered event is answered with the id it would have had (docs/filters-and-quotas.md).
      return { id: (accepted[0] ?? filtered[0]?.eventId) as string };
    }
    const event = await this.#refusedAsInvalid(key, 1, receivedAt, async () =>
      parseEventPayload(
        await decompressBody(input.body, input.headers.get("content-encoding"), {
          bytes: INGEST_LIMITS.eventBytes,
          what: "Event",
        }),
      ),
    );
    const [id] = await this.#captureReceived(key, withInferredIps([event], input), receivedAt);
    return { id: id ?? filteredEventId(event.event) };
  }

  /**
   * The body goes to a worker thread (transferred) with the project's filter and scrubbing
   * settings; the thread answers with (scrubbed) queue rows and the filtered events' reasons, or
   * the refusal. Limits, outcomes and
   * the group commit stay here, as inline.
   */
  async #ingestIsolated(
    isolation: IngestIsolation,
    key: ProjectKeyRecord,
    kind: PrepareJob["kind"],
    input: IngestInput,
    receivedAt: Date,
  ): Promise<{
    accepted: string[];
    filtered: readonly FilteredEvent[];
    items: readonly EnvelopeItemInput[];
    envelopeHeader: Record<string, unknown>;
  }> {
    const prepared = await isolation.run({
      kind,
      itemTypes: [...this.#itemTypes],
      body: input.body,
      contentEncoding: input.headers.get("content-encoding"),
      receivedAtMs: receivedAt.getTime(),
      clientAddress: input.clientAddress ?? null,
      // Per-project accept-time settings travel with the job: the thread needs no database.
      settings: await isolation.settingsOf(key.project.id),
    });
    if (!prepared.ok) {
      const { status, detail, extra, headers, invalidEvents } = prepared;
      if (invalidEvents !== null && status < 500)
        this.#count(key, "invalid", status === 413 ? "too_large" : "payload", invalidEvents, receivedAt);
      throw new ApiError(status, detail, extra, headers);
    }
    for (const discard of prepared.discards)
      this.#count(key, "client_discard", discard.reason, discard.quantity, receivedAt, discard.category);
    this.#refuseWhenOverloaded(key, prepared.events.length + prepared.filtered.length, receivedAt);
    for (const { reason } of prepared.filtered) this.#count(key, "filtered", reason, 1, receivedAt);
    const accepted = await this.#capture(key, prepared.events.length, receivedAt, () =>
      isolation.appendPrepared(key.project, prepared.events),
    );
    return { accepted, filtered: prepared.filtered, items: prepared.items, envelopeHeader: prepared.envelopeHeader };
  }

  async #captureReceived(key: ProjectKeyRecord, received: ReceivedEvent[], receivedAt: Date): Promise<string[]> {
    this.#refuseWhenOverloaded(key, received.length, receivedAt);
    // Filtered events are answered like accepted ones but spend no quota (docs/filters-and-quotas.md).
    const kept = await this.#withoutFiltered(key, received, receivedAt);
    const events = await this.#withoutDiscarded(key, kept, receivedAt);
    return this.#capture(key, events.length, receivedAt, () => this.#store(key, events, receivedAt));
  }

  /**
   * Only events count against the limits; the events an envelope keeps past its filters are
   * accepted or refused as a whole. Overload was checked (again, after the parse: the key may have
   * come in the envelope only) by the caller, before the filters.
   */
  async #capture(
    key: ProjectKeyRecord,
    events: number,
    receivedAt: Date,
    store: () => Promise<string[]>,
  ): Promise<string[]> {
    if (events === 0) return [];
    if (key.rateLimit !== null) {
      const { count, windowMs } = key.rateLimit;
      const decision = await this.limiter.consume(key.keyId, events, count, receivedAt.getTime(), windowMs);
      if (!decision.allowed) {
        this.#count(key, "rate_limited", "key_quota", events, receivedAt);
        throw rateLimited(decision.retryAfterSeconds);
      }
    }
    const quota = await this.policy?.organizationQuota(key.project.organizationId, events, receivedAt.getTime());
    if (quota && !quota.allowed) {
      this.#count(key, "rate_limited", quota.reason, events, receivedAt);
      throw organizationThrottled(quota.retryAfterSeconds, quota.reason);
    }
    if (!this.admission) return this.#accept(key, events, receivedAt, store);
    if (!(await this.admission.admit(events, receivedAt.getTime()))) {
      this.#count(key, "rate_limited", "queue_full", events, receivedAt);
      throw queueFull(QUEUE_FULL_RETRY_AFTER_SECONDS);
    }
    try {
      return await this.#accept(key, events, receivedAt, store);
    } catch (error) {
      this.admission.release(events);
      throw error;
    }
  }

  /** The events the project's inbound filters keep; each one dropped is counted as `filtered` with its reason. */
  async #withoutFiltered(key: ProjectKeyRecord, events: ReceivedEvent[], receivedAt: Date): Promise<ReceivedEvent[]> {
    const policy = this.policy;
    if (!policy) return events;
    const settings = await policy.filterSettings(key.project.id);
    return events.filter(({ event }) => {
      const reason = policy.filterEvent(event, settings);
      if (reason !== null) this.#count(key, "filtered", reason, 1, receivedAt);
      return reason === null;
    });
  }

  /**
   * The events whose grouping hashes no discarded issue's tombstone holds (docs/issues.md,
   * "Discard"); each one dropped is counted as `filtered`, `discarded-hash`. The hashes are
   * computed here only for a project that has tombstones: for the others this is one cached lookup.
   */
  async #withoutDiscarded(key: ProjectKeyRecord, events: ReceivedEvent[], receivedAt: Date): Promise<ReceivedEvent[]> {
    const policy = this.policy;
    if (!policy?.discardedHashes || !policy.groupingHashes || events.length === 0) return events;
    const discarded = await policy.discardedHashes(key.project.id);
    if (discarded.size === 0) return events;
    const groupingHashes = policy.groupingHashes.bind(policy);
    const hashes = await Promise.all(events.map(({ event }) => groupingHashes(key.project.id, event)));
    return events.filter((_event, index) => {
      const refused = isDiscarded(hashes[index] ?? [], discarded);
      if (refused) this.#count(key, "filtered", DISCARDED_HASH, 1, receivedAt);
      return !refused;
    });
  }

  /**
   * In a storm the loop is saturated or the queue stays full: refusing before decompressing and
   * parsing keeps a 429 cheap, so the process keeps serving the host's own routes. Counted as one
   * event (SDKs send one per envelope); the exact count would cost the parse this avoids.
   */
  #refuseBeforeParsing(key: ProjectKeyRecord, receivedAt: Date): void {
    const refusal = this.#capacityRefusal(receivedAt.getTime());
    if (!refusal) return;
    this.#count(key, "rate_limited", refusal.reason, 1, receivedAt);
    throw refusal.error;
  }

  /**
   * The refusal a request gets before anything of it is read (accept/early-refusal.ts, from the
   * Node adapters): the same capacity checks as after authentication, decided from flags. Counted
   * for the project when the request names its active key (a cached lookup in a storm); a request
   * without a valid key is refused uncounted. Null when there is capacity.
   */
  earlyRefusal(projectIdSegment: string, claimedKey: () => string | null): Promise<ApiError> | null {
    const receivedAt = this.clock.now();
    const refusal = this.#capacityRefusal(receivedAt.getTime());
    if (!refusal) return null;
    const count = async () => {
      const key = await this.keys.authenticate(claimedKey(), parseProjectId(projectIdSegment));
      this.#count(key, "rate_limited", refusal.reason, 1, receivedAt);
    };
    return count().then(
      () => refusal.error,
      () => refusal.error,
    );
  }

  /** Overloaded loop, saturated ingest threads (waiting there would only grow the SDK's latency) or a full queue. */
  #capacityRefusal(nowMs: number): { reason: "overloaded" | "queue_full"; error: ApiError } | null {
    if (this.overload?.overloaded || this.isolation?.saturated)
      return { reason: "overloaded", error: overloaded(OVERLOADED_RETRY_AFTER_SECONDS) };
    if (this.admission?.isFull(nowMs))
      return { reason: "queue_full", error: queueFull(QUEUE_FULL_RETRY_AFTER_SECONDS) };
    return null;
  }

  /**
   * Load shedding: while the event loop is saturated, ingest is refused so that what else the
   * process serves (the host's routes, the management API, which this never refuses) stays responsive.
   */
  #refuseWhenOverloaded(key: ProjectKeyRecord, events: number, receivedAt: Date): void {
    if (!this.overload?.overloaded || events === 0) return;
    this.#count(key, "rate_limited", "overloaded", events, receivedAt);
    throw overloaded(OVERLOADED_RETRY_AFTER_SECONDS);
  }

  async #accept(
    key: ProjectKeyRecord,
    events: number,
    receivedAt: Date,
    store: () => Promise<string[]>,
  ): Promise<string[]> {
    const ids = await this.#refusedAsInvalid(key, events, receivedAt, store);
    this.#count(key, "accepted", "", events, receivedAt);
    return ids;
  }

  /** Runs `step`; when it refuses the request (a 4xx), the request's `events` are counted as invalid. */
  async #refusedAsInvalid<T>(
    key: ProjectKeyRecord,
    events: number,
    receivedAt: Date,
    step: () => Promise<T>,
  ): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof ApiError && error.status < 500)
        this.#count(key, "invalid", error.status === 413 ? "too_large" : "payload", events, receivedAt);
      throw error;
    }
  }

  #count(
    key: ProjectKeyRecord,
    outcome: Outcome,
    reason: string,
    quantity: number,
    at: Date,
    category = "error",
  ): void {
    if (quantity > 0) this.outcomes.record({ projectId: key.project.id, category, outcome, reason, quantity, at });
  }

  async #store(key: ProjectKeyRecord, events: ReceivedEvent[], receivedAt: Date): Promise<string[]> {
    const results = await Promise.all(
      events.map(({ event, source }) => this.sink.capture(key.project, event, { receivedAt, source })),
    );
    return results.map((result) => result.eventId);
  }
}

/** `{{auto}}` addresses replaced by the sender's, before anything stores or queues the events. */
function withInferredIps(events: ReceivedEvent[], input: IngestInput): ReceivedEvent[] {
  const address = normalizeAddress(input.clientAddress);
  return events.map((received) => {
    const event = inferUserIp(received.event, address);
    return event === received.event ? received : { event, source: null };
  });
}

/** Relay only routes numeric project ids, so anything else is not an ingest path: 404. */
function parseProjectId(segment: string): number {
  if (!/^\d{1,15}$/.test(segment)) throw notFound();
  return Number(segment);
}
