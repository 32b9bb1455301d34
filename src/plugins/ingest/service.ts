import type { Clock } from "../../clock.js";
import { notFound } from "../../http/errors.js";
import type { EventSink } from "../issues/ingest/port.js";
import { decompressBody } from "./decompress.js";
import { publicKeyFromDsn, publicKeyFromRequest } from "./dsn-auth.js";
import { parseEnvelope } from "./envelope.js";
import { queueFull, rateLimited } from "./errors.js";
import { eventsOf, parseEventPayload, type RawEvent } from "./event-payload.js";
import { INGEST_LIMITS } from "./limits.js";
import type { ProjectKeyRecord, ProjectKeyResolver } from "./project-keys.js";
import type { SharedRateLimiter } from "./rate-limit.js";

/** What the ingest routes hand over from a request. */
export interface IngestInput {
  /** The `{project_id}` path segment, unvalidated. */
  projectId: string;
  headers: Headers;
  query: URLSearchParams;
  body: Uint8Array;
}

/** Back-pressure of queued ingest: room for a request's events in a bounded queue. */
export interface IngestAdmission {
  /** Reserves room for `events`; false when the queue is full. */
  admit(events: number, nowMs: number): Promise<boolean>;
  /** Gives back room reserved for events that were not queued after all. */
  release(events: number): void;
}

/** How long an SDK is told to wait when the queue is full: the digest empties hundreds of events per batch. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 1;

/** Authenticates, unpacks and rate-limits what SDKs send, then hands error events to the sink. */
export class IngestService {
  constructor(
    private readonly keys: Pick<ProjectKeyResolver, "authenticate">,
    private readonly sink: EventSink,
    private readonly limiter: Pick<SharedRateLimiter, "consume">,
    private readonly clock: Clock,
    /** Present in queued mode only: direct ingest's latency is its back-pressure. */
    private readonly admission?: IngestAdmission,
  ) {}

  /** `POST /api/{project_id}/envelope/` → `{id}` of the (first) event, `{}` without one. */
  async ingestEnvelope(input: IngestInput): Promise<{ id?: string }> {
    const projectId = parseProjectId(input.projectId);
    const receivedAt = this.clock.now();
    const claimedKey = publicKeyFromRequest(input.headers, input.query);
    // With the key outside the body, reject bad senders before spending CPU on decompression.
    const earlyKey = claimedKey === null ? null : await this.keys.authenticate(claimedKey, projectId);
    const bytes = await decompressBody(input.body, input.headers.get("content-encoding"), { bytes: INGEST_LIMITS.envelopeBytes, what: "Envelope" });
    const envelope = parseEnvelope(bytes);
    const key = earlyKey ?? (await this.keys.authenticate(publicKeyFromDsn(envelope.header.dsn), projectId));
    const events = eventsOf(envelope);
    const [first] = await this.#capture(key, events, receivedAt);
    return first === undefined ? {} : { id: first };
  }

  /** `POST /api/{project_id}/store/` (legacy): one JSON event → `{id}`. */
  async ingestStore(input: IngestInput): Promise<{ id: string }> {
    const projectId = parseProjectId(input.projectId);
    const receivedAt = this.clock.now();
    const key = await this.keys.authenticate(publicKeyFromRequest(input.headers, input.query), projectId);
    const bytes = await decompressBody(input.body, input.headers.get("content-encoding"), { bytes: INGEST_LIMITS.eventBytes, what: "Event" });
    const [id] = await this.#capture(key, [parseEventPayload(bytes)], receivedAt);
    return { id: id as string };
  }

  /** Only events count against the key's limit; an envelope is accepted or refused as a whole. */
  async #capture(key: ProjectKeyRecord, events: RawEvent[], receivedAt: Date): Promise<string[]> {
    if (key.rateLimitPerMinute !== null) {
      const decision = await this.limiter.consume(key.keyId, events.length, key.rateLimitPerMinute, receivedAt.getTime());
      if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    }
    if (!this.admission) return this.#store(key, events, receivedAt);
    // Events refused here are not counted as client outcomes: Faultline keeps no outcome statistics.
    if (!(await this.admission.admit(events.length, receivedAt.getTime()))) throw queueFull(QUEUE_FULL_RETRY_AFTER_SECONDS);
    try {
      return await this.#store(key, events, receivedAt);
    } catch (error) {
      this.admission.release(events.length);
      throw error;
    }
  }

  async #store(key: ProjectKeyRecord, events: RawEvent[], receivedAt: Date): Promise<string[]> {
    const results = await Promise.all(events.map((event) => this.sink.capture(key.project, event, { receivedAt })));
    return results.map((result) => result.eventId);
  }
}

/** Relay only routes numeric project ids, so anything else is not an ingest path: 404 (api.md §1.3). */
function parseProjectId(segment: string): number {
  if (!/^\d{1,15}$/.test(segment)) throw notFound();
  return Number(segment);
}
