import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import { retryTransientFailures } from "../../../db/retry.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import { applyGroupingRules, type GroupingRules, normalizeEvent } from "../grouping/index.js";
import { type BatcherOptions, GroupCommitBatcher } from "../../../db/group-commit.js";
import type { NormalizedEvent } from "../grouping/types.js";
import type { GroupingRulesStore } from "../grouping-rules/store.js";
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
    /** The projects' grouping rules (docs/grouping.md); none when not given. */
    private readonly groupingRules: Pick<GroupingRulesStore, "forProject"> | null = null,
  ) {
    this.#batcher = new GroupCommitBatcher((items) => this.#write(items), options);
  }

  async capture(project: ProjectRef, raw: unknown, options: CaptureOptions = {}): Promise<{ eventId: string }> {
    const db = this.db();
    const processed = await this.#process(db, project, this.normalize(raw, options));
    const [event] = await this.#regroup(db, [{ project, event: processed }]);
    await this.#batcher.submit(event!);
    return { eventId: processed.eventId };
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
    const regrouped = await this.#regroup(scope.trx, processed);
    return storeEvents(scope, regrouped, { issues: this.issues(), now: this.clock.now() });
  }

  /**
   * Applies each project's grouping rules (docs/grouping.md, "Where rules apply"), after the
   * payload processors (rules match the symbolicated frames). Hashes computed at accept (perhaps
   * in an ingest thread, which has no database) are the default grouping's; here, with the
   * rules read once per project and batch (cached), the events of projects with rules are
   * grouped again. Events of projects without rules pass untouched.
   */
  async #regroup(db: Kysely<Database>, items: readonly StorableEvent[]): Promise<readonly StorableEvent[]> {
    const store = this.groupingRules;
    if (store === null || items.length === 0) return items;
    const rulesOf = new Map<number, GroupingRules>();
    for (const projectId of new Set(items.map((item) => item.project.id))) {
      const rules = await store.forProject(db, projectId);
      if (rules) rulesOf.set(projectId, rules);
    }
    if (rulesOf.size === 0) return items;
    return mapInTurns(items, async (item) => {
      const rules = rulesOf.get(item.project.id);
      return rules ? { ...item, event: applyGroupingRules(item.event, rules) } : item;
    });
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
