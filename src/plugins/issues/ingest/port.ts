import type { Kysely } from "kysely";
import type { InjectionToken } from "tsyringe";
import type { Database } from "../../../db/schema.js";
import type { TransactionScope } from "../../../db/transaction.js";
import type { NormalizedEvent } from "../grouping/types.js";

/** The project an event was sent to, as resolved from its DSN key. */
export interface ProjectRef {
  id: number;
  organizationId: number;
  platform: string | null;
}

export interface CaptureOptions {
  receivedAt?: Date;
  /**
   * The event's JSON text as it arrived, when `event` is exactly its parse: its byte length is
   * the event's size, and a queue may keep the text instead of serialising the event again.
   */
  source?: string | null;
}

/**
 * Where ingestion hands events: grouping, issue upsert, counters, automatic transitions and
 * storage, in one committed transaction. Resolves with the event id once committed; throws a
 * 400 `ApiError` for an event that is not a valid event object.
 */
export interface EventSink {
  capture(project: ProjectRef, event: unknown, options?: CaptureOptions): Promise<{ eventId: string }>;
}

export const EventSinkToken: InjectionToken<EventSink> = Symbol("faultline.EventSink");

/** One event for {@link EventStore.storeBatch}: normalised, with the project it was sent to. */
export interface StorableEvent {
  project: ProjectRef;
  event: NormalizedEvent;
}

/**
 * The two halves of {@link EventSink.capture}, for an ingest path that queues between them:
 * `normalize` (validation and the input repair of docs/issues.md, "Repairing events, never losing
 * them"; throws a 400 `ApiError`) at accept time, and `storeBatch` (grouping, issue upsert,
 * counters, transitions, domain events) later, in the caller's transaction so the caller can
 * commit other work with it.
 */
export interface EventStore {
  normalize(raw: unknown, options?: CaptureOptions): NormalizedEvent;
  storeBatch(scope: TransactionScope, events: readonly StorableEvent[]): Promise<void>;
}

export const EventStoreToken: InjectionToken<EventStore> = Symbol("faultline.EventStore");
export type { NormalizedEvent } from "../grouping/types.js";

/**
 * An extension point of event storage: a plugin rewrites an event's payload before it is grouped
 * and stored (source-map symbolication, for instance). Registered under
 * {@link EventPayloadProcessorToken} (several may be; they run in registration order). Runs at
 * store time — for queued ingest in the digest's transaction, whose handle is `db`, so the
 * processor reads with it (an embedded database has one connection). Returns the new payload, or
 * null to leave the event unchanged; it must not throw for bad data (record it in `errors`).
 */
export interface EventPayloadProcessor {
  readonly id: string;
  process(input: {
    db: Kysely<Database>;
    project: ProjectRef;
    payload: Record<string, unknown>;
  }): Promise<Record<string, unknown> | null>;
}

export const EventPayloadProcessorToken: InjectionToken<EventPayloadProcessor> = Symbol(
  "faultline.EventPayloadProcessor",
);
