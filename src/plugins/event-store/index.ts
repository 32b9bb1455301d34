import { registerFactory } from "../../container/container.js";
import { Clock, Db, Options } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { ProjectSettingsContributorToken } from "../organizations/index.js";
import { groupingRulesSettings } from "./grouping-rules/settings.js";
import { GroupingRulesStore } from "./grouping-rules/store.js";
import { eventStoreMigrations, eventStoreOwnMigrations } from "./migrations.js";
import { partitionTask, retentionApi, retentionTask } from "./retention/task.js";
import { eventReleases } from "./read/releases.js";
import { eventEndpoints } from "./read/routes.js";
import { PostgresEventStore } from "./store.js";
import { EventPayloadProcessorToken, EventSinkToken, EventStoreToken, IssueGroupingToken } from "./tokens.js";
import { EventProcessor } from "./write/processor.js";
import { EventProcessorToken, GroupingRulesStoreToken } from "./write/token.js";

/** How long a project's grouping rules stay cached: a change made on another instance applies within this time. */
const GROUPING_RULES_CACHE_TTL_MS = 10_000;

/**
 * The event store (ARCHITECTURE.md, "The rooms"): normalisation and grouping, the event write
 * path, the stored events' reads and the project events API, and the events' partitions and
 * retention, behind the {@link EventStore} interface. The issues plugin owns triage and plugs into
 * the write path through the {@link IssueGrouping} port it registers.
 */
export const eventStorePlugin = definePlugin({
  id: "event-store",
  coreLedgerMigrations: eventStoreMigrations,
  migrations: eventStoreOwnMigrations,
  dependencies: ["organizations"],
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(
      container,
      GroupingRulesStoreToken,
      (c) => new GroupingRulesStore(c.resolve(Clock), GROUPING_RULES_CACHE_TTL_MS),
    );
    registerFactory(container, ProjectSettingsContributorToken, (c) =>
      groupingRulesSettings(() => c.resolve(GroupingRulesStoreToken)),
    );
    registerFactory(
      container,
      EventProcessorToken,
      (c) =>
        new EventProcessor(
          db,
          () => c.resolve(IssueGroupingToken),
          c.resolve(Clock),
          { maxBatch: 500, maxDelayMs: 2, maxConcurrent: 4 },
          () => (c.isRegistered(EventPayloadProcessorToken, true) ? c.resolveAll(EventPayloadProcessorToken) : []),
          c.resolve(GroupingRulesStoreToken),
        ),
    );
    registerFactory(container, EventSinkToken, (c) => c.resolve(EventProcessorToken));
    registerFactory(
      container,
      EventStoreToken,
      (c) =>
        new PostgresEventStore(
          db,
          c.resolve(EventProcessorToken),
          () => c.resolve(Options).schema,
          (rows) => eventReleases(c, rows),
        ),
    );
  },
  endpoints: eventEndpoints,
  tasks: [partitionTask, retentionTask],
  api: (container) => ({ retention: retentionApi(container) }),
  close: ({ container }) => container.resolve(EventProcessorToken).drain(),
});

/** The ingest port: where the ingest plugin hands events, directly or through its queue; the event store's interface. */
export {
  EventPayloadProcessorToken,
  EventSinkToken,
  EventStoreToken,
  IssueGroupingToken,
  IssueRetentionToken,
  type CaptureOptions,
  type EventPayloadProcessor,
  type EventReads,
  type EventRegrouping,
  type EventSink,
  type EventStore,
  type EventWrites,
  type IssueBatch,
  type IssueGrouping,
  type IssueRetention,
  type IssueRetentionReport,
  type NormalizedEvent,
  type OrganizationEvent,
  type ProjectRef,
  type StorableEvent,
  type StoredBatchEvent,
} from "./tokens.js";
export type { EventLevel, EventMessage, EventUser } from "./grouping/index.js";
/**
 * Validation and input repair of one event, pure (no database): what `EventStore.normalize` runs,
 * for an ingest worker thread that has no container (docs/ingest.md).
 */
export { applyGroupingRules, type GroupingRules, normalizeEvent } from "./grouping/index.js";
/** A project's grouping rules, parsed and cached per instance: ingest regroups by them to check tombstones at accept. */
export { GroupingRulesStoreToken } from "./write/token.js";
export type { EventOrder, IssueEventFilter, ProjectEventFilter } from "./read/issue-events.js";
export { environmentsParam, eventListQuery, eventListTerms, parseEventQuery } from "./read/event-query.js";
export { eventReleases } from "./read/releases.js";
export { type EventReleaseReader, EventReleaseReaderToken, type ReleaseObjects } from "./read/release-port.js";
export type { IssueHashPage } from "./read/hashes.js";
export type { EventCountBucket, IssueEventSummary } from "./read/issue-summary.js";
export type { HashSplit } from "./write/reassign.js";
export { parseEventId } from "./read/queries.js";
export { type Neighbours, serializeEvent, serializeEventListItem, serializeIssueEventItem } from "./read/serialize.js";
export {
  serializeTagKey,
  serializeTagValue,
  TAG_VALUE_SORTS,
  type TagKeySummary,
  type TagScope,
  type TagValueRow,
  type TagValueSort,
} from "./read/tags.js";
export type { RetentionReport } from "./retention/run.js";
export type { EventIdsTable, EventsTable, StoredEvent } from "./tables.js";
