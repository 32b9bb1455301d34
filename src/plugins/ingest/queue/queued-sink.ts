import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import { GroupCommitBatcher, type BatcherOptions } from "../../../db/group-commit.js";
import { retryTransientFailures } from "../../../db/retry.js";
import type { Database } from "../../../db/schema.js";
import type { CaptureOptions, EventSink, EventStore, ProjectRef } from "../../event-store/index.js";
import type { PreparedEvent } from "../isolation/prepare.js";
import type { QueueDepthGauge } from "./depth.js";
import { queuedText } from "./queued-text.js";
import type { QueueStatements } from "./statements.js";

interface QueuedEvent {
  projectId: number;
  organizationId: number;
  platform: string | null;
  event: string;
}

/**
 * The accept half of queued ingest: validates and normalises an event (the same 400s and input
 * repair as direct ingest, and the event id the SDK is told), appends it to `ingest_queue` with
 * one multi-row INSERT per group commit, and resolves once that committed — before grouping. Then
 * it wakes the digest task so that the event becomes visible within milliseconds when this process
 * runs a worker.
 */
export class QueuedEventSink implements EventSink {
  readonly #batcher: GroupCommitBatcher<QueuedEvent>;

  constructor(
    private readonly deps: {
      db: () => Kysely<Database>;
      store: Pick<EventStore, "normalize">;
      statements: QueueStatements;
      depth: QueueDepthGauge;
      clock: Clock;
      wakeDigest: () => void;
    },
    options: BatcherOptions,
  ) {
    this.#batcher = new GroupCommitBatcher((events) => this.#append(events), options);
  }

  async capture(project: ProjectRef, raw: unknown, options: CaptureOptions = {}): Promise<{ eventId: string }> {
    const event = this.deps.store.normalize(raw, {
      receivedAt: options.receivedAt ?? this.deps.clock.now(),
      source: options.source,
    });
    const text = queuedText(event, options.source && event.payload === raw ? options.source : null);
    await this.#enqueue(project, text);
    return { eventId: event.eventId };
  }

  /**
   * Queues events normalised and serialised elsewhere (an ingest worker thread: docs/ingest.md),
   * resolving with their ids once committed, as {@link capture} does.
   */
  async appendPrepared(project: ProjectRef, events: readonly PreparedEvent[]): Promise<string[]> {
    await Promise.all(events.map((event) => this.#enqueue(project, event.text)));
    return events.map((event) => event.eventId);
  }

  #enqueue(project: ProjectRef, text: string): Promise<void> {
    return this.#batcher.submit({
      projectId: project.id,
      organizationId: project.organizationId,
      platform: project.platform,
      event: text,
    });
  }

  /** Writes what is waiting for a group commit (on close, before the database goes). */
  drain(): Promise<void> {
    return this.#batcher.drain();
  }

  async #append(events: QueuedEvent[]): Promise<void> {
    const append = this.deps.statements.append(events);
    // A connection lost mid-INSERT (a terminated backend, a failover) is retried once on a fresh
    // one, as direct ingest does. Should the lost INSERT have committed, the events are queued
    // twice and stored once: the digest keeps one event per (project, event id).
    await retryTransientFailures(() => this.deps.db().executeQuery(append), { lostConnection: true });
    this.deps.wakeDigest();
  }
}
