import type { InjectionToken } from "tsyringe";
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
 * `normalize` (validation and the #13 input repair; throws a 400 `ApiError`) at accept time, and
 * `storeBatch` (grouping, issue upsert, counters, transitions, domain events) later, in the
 * caller's transaction so the caller can commit other work with it.
 */
export interface EventStore {
  normalize(raw: unknown, options?: CaptureOptions): NormalizedEvent;
  storeBatch(scope: TransactionScope, events: readonly StorableEvent[]): Promise<void>;
}

export const EventStoreToken: InjectionToken<EventStore> = Symbol("faultline.EventStore");
export type { NormalizedEvent } from "../grouping/types.js";
