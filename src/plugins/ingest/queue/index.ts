import type { DependencyContainer, InjectionToken } from "tsyringe";
import { registerFactory } from "../../../container/container.js";
import { Clock, Db, Logger, Metrics, Options, WakeTask } from "../../../container/tokens.js";
import type { TaskDefinition } from "../../../worker/task.js";
import { EventStoreToken } from "../../event-store/index.js";
import type { IngestAdmission } from "../accept/service.js";
import { QueueDepthGauge } from "./depth.js";
import { QueueDigest } from "./digest.js";
import { QueuedEventSink } from "./queued-sink.js";
import { QueueStatements } from "./statements.js";

export const DIGEST_TASK_ID = "ingest.digest";

export const QueuedEventSinkToken: InjectionToken<QueuedEventSink> = Symbol("faultline.QueuedEventSink");
export const QueueDigestToken: InjectionToken<QueueDigest> = Symbol("faultline.QueueDigest");
export const QueueDepthToken: InjectionToken<QueueDepthGauge> = Symbol("faultline.QueueDepth");
export const QueueStatementsToken: InjectionToken<QueueStatements> = Symbol("faultline.QueueStatements");

/** The queue's services, one set per instance; only resolved when `ingest.queued` is on. */
export function registerIngestQueue(container: DependencyContainer): void {
  const db = () => container.resolve(Db);
  registerFactory(container, QueueStatementsToken, (c) => new QueueStatements(c.resolve(Options).schema));
  registerFactory(container, QueueDepthToken, (c) => {
    const statements = c.resolve(QueueStatementsToken);
    return new QueueDepthGauge(c.resolve(Options).ingest.maxQueueDepth, async () => {
      const { rows } = await db().executeQuery(statements.depth());
      return Number(rows[0]?.depth ?? 0);
    });
  });
  registerFactory(container, QueuedEventSinkToken, (c) => {
    const wake = c.resolve(WakeTask);
    const deps = {
      db,
      store: c.resolve(EventStoreToken),
      statements: c.resolve(QueueStatementsToken),
      depth: c.resolve(QueueDepthToken),
      clock: c.resolve(Clock),
    };
    // The same group-commit shape as direct ingest: one INSERT for what arrives within 2 ms.
    return new QueuedEventSink(
      { ...deps, wakeDigest: () => wake(DIGEST_TASK_ID) },
      { maxBatch: 500, maxDelayMs: 2, maxConcurrent: 4 },
    );
  });
  registerFactory(
    container,
    QueueDigestToken,
    (c) =>
      new QueueDigest({
        db,
        store: c.resolve(EventStoreToken),
        statements: c.resolve(QueueStatementsToken),
        depth: c.resolve(QueueDepthToken),
        logger: c.resolve(Logger),
        batchSize: c.resolve(Options).ingest.digestBatchSize,
        concurrency: c.resolve(Options).ingest.digestConcurrency,
        digested: c.resolve(Metrics).counter("ingest_events_digested_total", "Queued events the digest stored"),
      }),
  );
}

/** Back-pressure for the ingest service: the depth gauge against `ingest.maxQueueDepth`. */
export function queueAdmission(container: DependencyContainer): IngestAdmission {
  return container.resolve(QueueDepthToken);
}

/**
 * Digests the ingest queue. Woken by every accept group commit in this process; polled every
 * 250 ms otherwise (accepts in other processes). A no-op in direct mode.
 */
export const digestTask: TaskDefinition = {
  id: DIGEST_TASK_ID,
  intervalMs: 250,
  run: async ({ container }) => {
    if (!container.resolve(Options).ingest.queued) return false;
    const digest: QueueDigest = container.resolve(QueueDigestToken);
    return digest.digestDue();
  },
};
