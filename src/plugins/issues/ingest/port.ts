import type { InjectionToken } from "tsyringe";

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
