import type { DependencyContainer, InjectionToken } from "tsyringe";
import { registerFactory } from "../../../container/container.js";
import { Clock, Db, Metrics, Options } from "../../../container/tokens.js";
import type { CheckResult, ReadinessCheck } from "../../../observability/readiness.js";
import { QueueStatementsToken } from "../queue/index.js";
import type { OutcomeRecord } from "../outcomes/recorder.js";

/** The ingest queue as metrics and readiness see it. */
export interface QueueSnapshot {
  /** Events waiting for the digest. */
  waiting: number;
  /** Events the digest gave up on (they stay in `ingest_queue` for inspection). */
  failed: number;
  /** Seconds the oldest waiting event has waited (0 when none waits). */
  lagSeconds: number;
}

/** Reads the queue's figures (null in direct mode or before initialisation). */
type ReadSnapshot = () => Promise<QueueSnapshot | null>;

export const QueueSnapshotToken: InjectionToken<ReadSnapshot> = Symbol("faultline.IngestQueueSnapshot");
/** Counts an ingest outcome (as recorded for the usage statistics) in the Prometheus counters. */
type ObserveOutcome = (record: OutcomeRecord) => void;

export const IngestObserverToken: InjectionToken<ObserveOutcome> = Symbol("faultline.IngestObserver");

/** `ingest_events_dropped_total` reasons: the outcome's reason where it has one that says more than the outcome. */
const DROP_REASONS = [
  "rate_limited",
  "queue_full",
  "overloaded",
  "too_large",
  "invalid",
  "filtered",
  "client_discard",
] as const;

function dropReason(record: OutcomeRecord): (typeof DROP_REASONS)[number] {
  if (record.outcome === "rate_limited")
    return record.reason === "queue_full" || record.reason === "overloaded" ? record.reason : "rate_limited";
  if (record.outcome === "invalid") return record.reason === "too_large" ? "too_large" : "invalid";
  if (record.outcome === "filtered") return "filtered";
  return "client_discard";
}

/**
 * Registers the ingest metrics: events accepted and dropped (by reason, from the same outcomes as
 * the usage statistics) and digested, counted as it happens; the queue's depth and lag, read from the database when scraped (queued ingest only,
 * and only once the instance is initialised: a scrape never opens the database).
 */
export function registerIngestObservability(container: DependencyContainer): void {
  registerFactory(container, QueueSnapshotToken, (c) => {
    const statements = c.resolve(QueueStatementsToken);
    const read = async (): Promise<QueueSnapshot | null> => {
      if (!c.resolve(Options).ingest.queued) return null;
      let db;
      try {
        db = c.resolve(Db);
      } catch {
        return null; // not initialised yet
      }
      const { rows } = await db.executeQuery(statements.stats());
      const row = rows[0];
      const oldest = row?.oldest ? Date.parse(row.oldest) : Number.NaN;
      const lagMs = Number.isNaN(oldest) ? 0 : Math.max(0, c.resolve(Clock).now().getTime() - oldest);
      return { waiting: Number(row?.waiting ?? 0), failed: Number(row?.failed ?? 0), lagSeconds: lagMs / 1000 };
    };
    // The gauges of one scrape are collected together: they share one query in flight (never an older answer).
    let inFlight: Promise<QueueSnapshot | null> | undefined;
    return () => (inFlight ??= read().finally(() => (inFlight = undefined)));
  });

  const metrics = container.resolve(Metrics);
  const snapshot = () => container.resolve<ReadSnapshot>(QueueSnapshotToken)();
  metrics.gauge("ingest_queue_depth", "Accepted events waiting for the digest (queued ingest)", [], async (gauge) => {
    const current = await snapshot();
    if (current) gauge.set(current.waiting);
  });
  metrics.gauge(
    "ingest_queue_failed",
    "Queued events the digest gave up on; they stay in ingest_queue",
    [],
    async (gauge) => {
      const current = await snapshot();
      if (current) gauge.set(current.failed);
    },
  );
  metrics.gauge(
    "ingest_digest_lag_seconds",
    "How long the oldest event waiting for the digest has waited",
    [],
    async (gauge) => {
      const current = await snapshot();
      if (current) gauge.set(current.lagSeconds);
    },
  );

  const accepted = metrics.counter(
    "ingest_events_accepted_total",
    "Events ingest accepted (queued, or stored in direct mode)",
  );
  const dropped = metrics.counter(
    "ingest_events_dropped_total",
    "Error events refused by ingest, or discarded by the SDK (client_discard), by reason",
    ["reason"],
    // Every reason exists from the start, so rate() over it works before the first refusal.
    DROP_REASONS.map((reason) => ({ reason })),
  );
  // Error events only: client reports also count the SDK's discarded sessions, transactions, attachments.
  registerFactory(container, IngestObserverToken, () => (record) => {
    if (record.category !== "error") return;
    if (record.outcome === "accepted") accepted.inc(record.quantity);
    else dropped.inc({ reason: dropReason(record) }, record.quantity);
  });
}

/** Readiness of queued ingest: the oldest waiting event's age and the queue's depth against `health.maxQueueLagMs` / `health.maxQueueDepth`. */
export const queueReadiness: ReadinessCheck = {
  name: "ingest.queue",
  check: async ({ container }): Promise<CheckResult> => {
    const current = await container.resolve<ReadSnapshot>(QueueSnapshotToken)();
    if (!current) return { status: "skipped", detail: "direct ingest (ingest.queued: false)" };
    const options = container.resolve(Options);
    const maxDepth = options.health.maxQueueDepth ?? options.ingest.maxQueueDepth;
    const maxLagSeconds = options.health.maxQueueLagMs / 1000;
    const figures = { depth: current.waiting, lagSeconds: current.lagSeconds, failed: current.failed };
    if (maxLagSeconds > 0 && current.lagSeconds > maxLagSeconds)
      return {
        status: "fail",
        detail: `the oldest queued event has waited more than ${maxLagSeconds} s (is a worker running?)`,
        ...figures,
      };
    if (maxDepth > 0 && current.waiting >= maxDepth)
      return { status: "fail", detail: `${current.waiting} events queued (limit ${maxDepth})`, ...figures };
    return { status: "ok", ...figures };
  },
};
