import { availableParallelism } from "node:os";
import type { DependencyContainer } from "tsyringe";
import { registerFactory } from "../../container/container.js";
import { Clock, Db, Logger, Options } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { filterEvent, InboundFilterServiceToken, NO_FILTERS } from "../inbound-filters/index.js";
import { ScrubbingSettingsToken, scrubEvent } from "../data-scrubbing/index.js";
import {
  applyGroupingRules,
  EventSinkToken,
  type GroupingRules,
  GroupingRulesStoreToken,
  normalizeEvent,
} from "../event-store/index.js";
import { IssueTombstonesToken } from "../issues/index.js";
import { OrganizationQuotasToken } from "../quotas/index.js";
import { ingestErrorRenderer } from "./accept/cors.js";
import { captureInProject, type ProjectTarget } from "./accept/in-process.js";
import { KEY_CACHE_TTL_MS, RATE_LIMIT_WINDOW_MS } from "./limits/limits.js";
import { IngestObserverToken, queueReadiness, registerIngestObservability } from "./observability/observability.js";
import { ProjectKeyResolver } from "./accept/project-keys.js";
import { digestTask, queueAdmission, QueuedEventSinkToken, registerIngestQueue } from "./queue/index.js";
import { databaseQuotaStore, rateLimitCleanupTask, SharedRateLimiter } from "./limits/rate-limit.js";
import { ingestEndpoints } from "./accept/routes.js";
import { OutcomeRecorder, type OutcomeRecord } from "./outcomes/recorder.js";
import { getOutcomeStats } from "./outcomes/routes.js";
import { EventLoopDelayMonitor } from "./limits/overload.js";
import { INGEST_WORKER_URL, IngestWorkerPool } from "./isolation/pool.js";
import { prepareIngest } from "./isolation/prepare.js";
import { type AcceptPolicy, IngestService, type IngestIsolation } from "./accept/service.js";
import { scrubbingSink } from "./accept/scrubbing-sink.js";
import { EnvelopeItemHandlerToken } from "./accept/item-handlers.js";
import { ingestEarlyRefusal } from "./accept/early-refusal.js";
import { EarlyRefusalToken } from "../../http/early-refusal.js";
import {
  IngestServiceToken,
  IngestSinkToken,
  IngestWorkerPoolToken,
  OutcomeRecorderToken,
  OverloadMonitorToken,
  ProjectKeyResolverToken,
} from "./tokens.js";
import { ingestMigrations } from "./migrations.js";
import { queueLeftoversTask } from "./queue/leftovers.js";

/** How often counted outcomes are added to `ingest_outcomes`: the usage statistics lag by at most this. */
const OUTCOME_FLUSH_INTERVAL_MS = 5_000;

/** Load shedding applies to queued ingest only: direct ingest's latency is its back-pressure. */
function shedsOnOverload(container: DependencyContainer): boolean {
  const { queued, shedAtEventLoopDelayMs } = container.resolve(Options).ingest;
  return queued && shedAtEventLoopDelayMs !== null;
}

function threadsWanted(container: DependencyContainer): boolean {
  const { queued, isolation } = container.resolve(Options).ingest;
  return queued && isolation === "threads";
}

/** Threads apply to queued ingest where the worker's file is beside the bundle (docs/ingest.md, "Isolation"). */
function runsInThreads(container: DependencyContainer): boolean {
  return threadsWanted(container) && IngestWorkerPool.available();
}

/** A bundler moved Faultline away from its worker's file: said once per instance, with the cure. */
function warnWorkerMissing(container: DependencyContainer): void {
  container
    .resolve(Logger)
    .warn(
      { workerUrl: INGEST_WORKER_URL.href },
      'faultline: the ingest worker\'s file is not beside the bundle (a bundler moved Faultline); ingest runs on the host\'s thread. Leave "faultline" out of the bundle (Next.js: serverExternalPackages), docs/ingest.md, "Isolation"',
    );
}

/**
 * The worker threads, fed the project's settings read (cached) on this thread: the inbound
 * filters as the accept policy reads them, and the scrubbing settings, which must be known (an
 * event is never queued unscrubbed for want of them).
 */
function threadedIngest(container: DependencyContainer, policy: AcceptPolicy): IngestIsolation {
  const pool = container.resolve(IngestWorkerPoolToken);
  const sink = container.resolve(QueuedEventSinkToken);
  const scrubbing = container.resolve(ScrubbingSettingsToken);
  return {
    get saturated() {
      return pool.saturated;
    },
    run: (job) => pool.run(job),
    settingsOf: async (projectId) => {
      const [filters, scrubbingSettings, discardedHashes] = await Promise.all([
        policy.filterSettings(projectId),
        scrubbing.forProject(projectId),
        policy.discardedHashes?.(projectId) ?? null,
      ]);
      const groupingRules = discardedHashes?.size ? await groupingRulesOf(container, projectId) : null;
      return { filters, scrubbing: scrubbingSettings, discardedHashes, groupingRules };
    },
    appendPrepared: (project, events) => sink.appendPrepared(project, events),
  };
}

/**
 * The project's inbound filters and discarded hashes, and the organization's quotas, as the
 * accept path asks for them.
 */
function acceptPolicy(container: DependencyContainer): AcceptPolicy {
  const filters = container.resolve(InboundFilterServiceToken);
  const quotas = container.resolve(OrganizationQuotasToken);
  const tombstones = container.resolve(IssueTombstonesToken);
  const scrubbing = container.resolve(ScrubbingSettingsToken);
  const clock = container.resolve(Clock);
  // Settings or counters that cannot be read refuse nothing: an event is never refused for want of them.
  return {
    filterSettings: (projectId) => filters.settingsOf(projectId).catch(() => NO_FILTERS),
    filterEvent,
    organizationQuota: (organizationId, events, nowMs) =>
      quotas.consume(organizationId, events, nowMs).catch(() => ({ allowed: true }) as const),
    discardedHashes: (projectId) => tombstones.discardedHashes(projectId).catch(() => NO_HASHES),
    // As the sink will see it: scrubbed first (grouping reads the scrubbed event), then normalised.
    // An event normalisation refuses is not decided here: the sink refuses it as before.
    groupingHashes: async (projectId, event) => {
      try {
        const scrubbed = scrubEvent(event, await scrubbing.forProject(projectId)).event;
        const normalized = normalizeEvent(scrubbed, { receivedAt: clock.now() });
        const rules = await groupingRulesOf(container, projectId);
        return (rules ? applyGroupingRules(normalized, rules) : normalized).hashes;
      } catch {
        return [];
      }
    },
  };
}

const NO_HASHES: ReadonlySet<string> = new Set();

/** The project's grouping rules (cached by the event store), null when it has none or they cannot be read. */
function groupingRulesOf(container: DependencyContainer, projectId: number): Promise<GroupingRules | null> {
  return container
    .resolve(GroupingRulesStoreToken)
    .forProject(container.resolve(Db), projectId)
    .catch(() => null);
}

/** One thread per core beyond the one the host's event loop uses, at most two: ingest must not starve the host. */
function defaultThreads(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

/**
 * Sentry-compatible ingestion (docs/issues.md, "From event to issue"): the envelope and store
 * endpoints real SDKs post to.
 */
export const ingestPlugin = definePlugin({
  id: "ingest",
  coreLedgerMigrations: ingestMigrations,
  dependencies: ["organizations", "issues", "inbound-filters", "quotas", "data-scrubbing"],
  register(container) {
    registerIngestQueue(container);
    registerIngestObservability(container);
    // Queued mode acknowledges once an event is queued; direct mode once it is grouped and stored.
    // Either way, each event is scrubbed first (docs/data-scrubbing.md).
    registerFactory(container, IngestSinkToken, (c) =>
      scrubbingSink(
        c.resolve(Options).ingest.queued ? c.resolve(QueuedEventSinkToken) : c.resolve(EventSinkToken),
        c.resolve(ScrubbingSettingsToken),
      ),
    );
    registerFactory(
      container,
      ProjectKeyResolverToken,
      (c) => new ProjectKeyResolver(() => c.resolve(Db), c.resolve(Clock), KEY_CACHE_TTL_MS),
    );
    // One service per instance: its key cache and leased rate-limit quota are its own; the
    // rate-limit counters they lease from are shared by every instance on the schema.
    registerFactory(container, IngestServiceToken, (c) => {
      const clock = c.resolve(Clock);
      const db = () => c.resolve(Db);
      const keys = c.resolve(ProjectKeyResolverToken);
      const { queued, shedAtEventLoopDelayMs } = c.resolve(Options).ingest;
      const admission = queued ? queueAdmission(c) : undefined;
      const overload = queued && shedAtEventLoopDelayMs !== null ? c.resolve(OverloadMonitorToken) : undefined;
      // Outcomes go to the usage statistics (ingest_outcomes) and to the Prometheus counters.
      const recorder = c.resolve(OutcomeRecorderToken);
      const observe = c.resolve(IngestObserverToken);
      const outcomes = { record: (record: OutcomeRecord) => (recorder.record(record), observe(record)) };
      const limiter = new SharedRateLimiter(RATE_LIMIT_WINDOW_MS, databaseQuotaStore(db));
      const policy = acceptPolicy(c);
      const isolation = runsInThreads(c) ? threadedIngest(c, policy) : undefined;
      if (!isolation && threadsWanted(c)) warnWorkerMissing(c);
      const sink = c.resolve(IngestSinkToken);
      const itemHandlers = c.isRegistered(EnvelopeItemHandlerToken, true) ? c.resolveAll(EnvelopeItemHandlerToken) : [];
      return new IngestService(
        keys,
        sink,
        limiter,
        clock,
        outcomes,
        admission,
        overload,
        policy,
        isolation,
        itemHandlers,
      );
    });
    registerFactory(container, EarlyRefusalToken, (c) => ingestEarlyRefusal(() => c.resolve(IngestServiceToken)));
    registerFactory(
      container,
      IngestWorkerPoolToken,
      (c) =>
        new IngestWorkerPool(c.resolve(Options).ingest.threads ?? defaultThreads(), c.resolve(Logger), prepareIngest),
    );
    // Resolved (and its histogram created) only when load shedding is on.
    registerFactory(
      container,
      OverloadMonitorToken,
      (c) => new EventLoopDelayMonitor(c.resolve(Options).ingest.shedAtEventLoopDelayMs ?? Number.POSITIVE_INFINITY),
    );
    registerFactory(
      container,
      OutcomeRecorderToken,
      (c) => new OutcomeRecorder(() => c.resolve(Db), c.resolve(Logger), c.resolve(Options).schema),
    );
  },
  init: ({ container }) => {
    container.resolve(OutcomeRecorderToken).start(OUTCOME_FLUSH_INTERVAL_MS);
    if (shedsOnOverload(container)) container.resolve(OverloadMonitorToken).start();
  },
  endpoints: [...ingestEndpoints, getOutcomeStats],
  errorRenderer: ingestErrorRenderer,
  tasks: [digestTask, queueLeftoversTask, rateLimitCleanupTask],
  on: {
    // A key renamed, rate-limited, disabled or deleted over the API: this instance reads it afresh
    // once the change committed (other instances within the cache's TTL).
    "project_keys.changed": (event, scope, { container }) =>
      scope.afterCommit(() => container.resolve(ProjectKeyResolverToken).forget(event.payload.publicKeys)),
  },
  readiness: [queueReadiness],
  api: (container) => ({
    events: {
      /**
       * Stores an event for a project (by id or slug) as if an SDK had sent it. Queued mode (the
       * default): resolves once durably queued; the issue shows within the digest's latency
       * (`faultline.worker.runDue("ingest.digest")` forces it). Direct mode (`ingest.queued: false`):
       * resolves once grouped and stored.
       */
      capture: (project: ProjectTarget, event: Record<string, unknown>) => captureInProject(container, project, event),
    },
  }),
  // Accepted events waiting for their group commit are written before the database closes.
  close: async ({ container }) => {
    if (shedsOnOverload(container)) container.resolve(OverloadMonitorToken).stop();
    // Requests already in a thread finish (and are queued below) before the threads stop.
    if (runsInThreads(container)) await container.resolve(IngestWorkerPoolToken).close();
    if (container.resolve(Options).ingest.queued) await container.resolve(QueuedEventSinkToken).drain();
    await container.resolve(OutcomeRecorderToken).close();
  },
});

export { IngestServiceToken } from "./tokens.js";
export { parseEnvelope, type Envelope, type EnvelopeItem } from "./accept/envelope.js";
export {
  EnvelopeItemHandlerToken,
  type EnvelopeItemContext,
  type EnvelopeItemHandler,
  type EnvelopeItemInput,
} from "./accept/item-handlers.js";
export type { IngestQueueTable, IngestOutcomesTable, RateLimitWindowsTable } from "./tables.js";
