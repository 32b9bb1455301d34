import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import { retryTransientFailures } from "../../../db/retry.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import { normalizeEvent } from "../grouping/index.js";
import { type BatcherOptions, GroupCommitBatcher } from "../../../db/group-commit.js";
import type { NormalizedEvent } from "../grouping/types.js";
import type {
  CaptureOptions,
  EventPayloadProcessor,
  EventSink,
  EventWrites,
  IssueGrouping,
  ProjectRef,
  StorableEvent,
} from "../tokens.js";
import { storeEvents } from "./store-events.js";
import { mapInTurns } from "../../../worker/yield.js";

/** Normalises, groups and stores events, batching concurrent ones into one transaction. */
export class EventProcessor implements EventSink, EventWrites {
  readonly #batcher: GroupCommitBatcher<StorableEvent>;

  constructor(
    private readonly db: () => Kysely<Database>,
    /** The issues plugin's side of the write path (resolved at each use: it registers after this plugin). */
    private readonly issues: () => IssueGrouping,
    private readonly clock: Clock,
    options: BatcherOptions,
    /** Payload processors other plugins registered (read at each use: registration comes later). */
    private readonly processors: () => readonly EventPayloadProcessor[] = () => [],
  ) {
    this.#batcher = new GroupCommitBatcher((items) => this.#write(items), options);
  }

  async capture(project: ProjectRef, raw: unknown, options: CaptureOptions = {}): Promise<{ eventId: string }> {
    const event = await this.#process(this.db(), project, this.normalize(raw, options));
    await this.#batcher.submit({ project, event });
    return { eventId: event.eventId };
  }

  normalize(raw: unknown, options: CaptureOptions = {}): NormalizedEvent {
    const size = options.source ? Buffer.byteLength(options.source) : undefined;
    return normalizeEvent(raw, { receivedAt: options.receivedAt ?? this.clock.now(), size });
  }

  async storeBatch(scope: TransactionScope, events: readonly StorableEvent[]): Promise<void> {
    // In slices, so that a batch of hundreds does not hold the host's requests.
    const processed =
      this.processors().length === 0
        ? events
        : await mapInTurns(events, async (item) => ({
            ...item,
            event: await this.#process(scope.trx, item.project, item.event),
          }));
    return storeEvents(scope, processed, { issues: this.issues(), now: this.clock.now() });
  }

  /**
   * Runs the registered payload processors, then derives everything again from the new payload
   * (title, culprit, grouping hashes): grouping sees what the processors made of the event.
   */
  async #process(db: Kysely<Database>, project: ProjectRef, event: NormalizedEvent): Promise<NormalizedEvent> {
    let payload = event.payload;
    for (const processor of this.processors()) {
      try {
        payload = (await processor.process({ db, project, payload })) ?? payload;
      } catch {
        // A processor's own failure leaves the event as it was: storing it matters more.
      }
    }
    if (payload === event.payload) return event;
    return normalizeEvent(payload, { receivedAt: event.received, size: event.size });
  }

  /** Waits until every accepted event is committed (used on close). */
  drain(): Promise<void> {
    return this.#batcher.drain();
  }

  async #write(items: StorableEvent[]): Promise<void> {
    // Lock ordering makes deadlocks unlikely, not impossible (a host's own transactions): retry.
    // A connection lost mid-batch (a terminated backend, a failover) is retried once on a fresh
    // one. Safe even if the lost COMMIT had landed: events are unique per (project, event id)
    // and only newly inserted ones count. A second failure is an outage: 503, the SDK retries.
    await retryTransientFailures(
      () =>
        runInTransaction(this.db(), (scope) =>
          storeEvents(scope, items, { issues: this.issues(), now: this.clock.now() }),
        ),
      {
        deadlock: true,
        lostConnection: true,
      },
    );
  }
}
