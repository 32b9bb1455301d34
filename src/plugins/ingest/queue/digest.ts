import type { Kysely } from "kysely";
import type { Counter } from "prom-client";
import { isConnectionFailure } from "../../../db/errors.js";
import type { Database } from "../../../db/schema.js";
import { retryTransientFailures } from "../../../db/retry.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import type { Logger } from "../../../logging/logger.js";
import { inActiveSpan, SPAN_STATUS_ERROR } from "../../../observability/tracing.js";
import { mapInTurns } from "../../../worker/yield.js";
import type { EventStore, NormalizedEvent, StorableEvent } from "../../event-store/index.js";
import type { QueueDepthGauge } from "./depth.js";
import type { QueueRow, QueueStatements } from "./statements.js";

/**
 * The digest stage of queued ingest: claims a large batch of queued events (`FOR UPDATE SKIP
 * LOCKED`, so consumers in several processes share the work), stores them with the issues
 * plugin's set-based batch writer (grouping, issue upserts, counters and stats carrying the
 * batch's deltas, domain events) and deletes the claimed rows — all in one transaction, so an
 * event is stored exactly once whether a consumer commits, fails or dies mid-batch.
 */
export class QueueDigest {
  constructor(
    private readonly deps: {
      db: () => Kysely<Database>;
      store: Pick<EventStore, "storeBatch">;
      statements: QueueStatements;
      depth: QueueDepthGauge;
      logger: Logger;
      batchSize: number;
      /** Batches digested at once while the queue is backed up (`ingest.digestConcurrency`). */
      concurrency: number;
      digested: Counter;
    },
  ) {}

  /** Whether the last round's batches were full: the queue is backed up. */
  #backedUp = false;

  /**
   * One round: `concurrency` batches at once while the queue is backed up (one batch's work in
   * Node overlaps another's in the database), else one — a queue of a few events is not split
   * into racing transactions. True when more is probably waiting.
   */
  async digestDue(): Promise<boolean> {
    const batches = await Promise.allSettled(
      Array.from({ length: this.#backedUp ? this.deps.concurrency : 1 }, () => this.digestBatch()),
    );
    // Settled together: the round ends only once none of its batches is still running.
    const failed = batches.find((batch) => batch.status === "rejected");
    this.#backedUp = !failed && batches.some((batch) => batch.status === "fulfilled" && batch.value);
    if (failed) throw failed.reason;
    return this.#backedUp;
  }

  /** Digests one batch; true when the batch was full (more is probably waiting). */
  async digestBatch(): Promise<boolean> {
    let claimed: QueueRow[];
    try {
      claimed = await this.#withRetry(async (scope) => {
        const { rows } = await scope.trx.executeQuery(this.deps.statements.claim(this.deps.batchSize));
        if (rows.length > 0) await this.#store(scope, rows);
        return rows;
      });
    } catch (error) {
      if (isConnectionFailure(error)) throw error;
      // One event the batch writer cannot store must not block the queue: retry one by one, so
      // it fails alone (and is skipped after MAX_DIGEST_ATTEMPTS) while the others go through.
      this.deps.logger.warn({ err: error }, "faultline: ingest digest batch failed; digesting its events one by one");
      return this.#digestOneByOne();
    }
    this.deps.depth.release(claimed.length);
    if (claimed.length > 0) this.deps.digested.inc(claimed.length);
    return claimed.length === this.deps.batchSize;
  }

  async #digestOneByOne(): Promise<boolean> {
    const { rows } = await this.deps.db().executeQuery(this.deps.statements.claim(this.deps.batchSize));
    for (const { id } of rows) {
      try {
        const stored = await this.#withRetry(async (scope) => {
          const { rows: one } = await scope.trx.executeQuery(this.deps.statements.claimOne(id));
          if (one.length > 0) await this.#store(scope, one);
          return one.length;
        });
        this.deps.depth.release(stored);
        if (stored > 0) this.deps.digested.inc(stored);
      } catch (error) {
        if (isConnectionFailure(error)) throw error;
        this.deps.logger.error(
          { err: error, queueId: String(id) },
          "faultline: a queued event could not be stored; it stays in ingest_queue",
        );
        await this.deps.db().executeQuery(this.deps.statements.recordFailure(id));
      }
    }
    return rows.length === this.deps.batchSize;
  }

  /** One span per stored batch (none for the empty polls of an idle queue). */
  #store(scope: TransactionScope, rows: readonly QueueRow[]): Promise<void> {
    return inActiveSpan("ingest.digest", { attributes: { "faultline.ingest.events": rows.length } }, async (span) => {
      try {
        // Parsed in slices: 500 queued events at once held the host's requests for several ms.
        await this.deps.store.storeBatch(scope, await mapInTurns(rows, storableEvent));
        await scope.trx.executeQuery(this.deps.statements.remove(rows.map((row) => row.id)));
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SPAN_STATUS_ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /** A deadlock or serialization failure (another transaction's lock order) runs the transaction again; a lost connection is the caller's to handle. */
  #withRetry<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return retryTransientFailures(() => runInTransaction(this.deps.db(), work), { deadlock: true });
  }
}

function storableEvent(row: QueueRow): StorableEvent {
  const event = JSON.parse(row.event) as Omit<NormalizedEvent, "timestamp" | "received"> & {
    timestamp: string;
    received: string;
  };
  return {
    project: { id: row.project_id, organizationId: row.organization_id, platform: row.platform },
    event: { ...event, timestamp: new Date(event.timestamp), received: new Date(event.received) },
  };
}
