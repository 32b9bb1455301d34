import type { DependencyContainer } from "tsyringe";
import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, Metrics } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { EventPayloadProcessorToken, EventSinkToken, EventStoreToken } from "./ingest/port.js";
import { EventProcessor } from "./ingest/processor.js";
import { IssueRepository } from "./repository.js";
import { issueEndpoints } from "./routes/index.js";
import { partitionTask, retentionApi, retentionTask } from "./retention/task.js";
import { purgeDeletedIssuesTask, snoozeExpiryTask } from "./tasks.js";
import { CommentService } from "./comments/service.js";
import { CommentServiceToken, EventProcessorToken, IssueRepositoryToken, IssueWorkflowToken } from "./tokens.js";
import { IssueWorkflow } from "./workflow/service.js";
import { issuesMigrations } from "./migrations.js";

/** Events and issues: grouping, storage, the issue workflow and its API. */
export const issuesPlugin = definePlugin({
  id: "issues",
  coreLedgerMigrations: issuesMigrations,
  dependencies: ["organizations"],
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(container, IssueRepositoryToken, () => new IssueRepository(db));
    registerFactory(
      container,
      IssueWorkflowToken,
      (c) => new IssueWorkflow(db, c.resolve(IssueRepositoryToken), c.resolve(EventBus), c.resolve(Clock)),
    );
    registerFactory(
      container,
      EventProcessorToken,
      (c) =>
        new EventProcessor(
          db,
          c.resolve(EventBus),
          c.resolve(Clock),
          { maxBatch: 500, maxDelayMs: 2, maxConcurrent: 4 },
          () => (c.isRegistered(EventPayloadProcessorToken, true) ? c.resolveAll(EventPayloadProcessorToken) : []),
        ),
    );
    registerFactory(container, EventSinkToken, (c) => c.resolve(EventProcessorToken));
    registerFactory(container, EventStoreToken, (c) => c.resolve(EventProcessorToken));
    issuesCreated(container); // exists at 0 from the start
    registerFactory(
      container,
      CommentServiceToken,
      (c) => new CommentService(db, c.resolve(IssueRepositoryToken), c.resolve(EventBus), c.resolve(Clock)),
    );
  },
  endpoints: issueEndpoints,
  tasks: [snoozeExpiryTask, purgeDeletedIssuesTask, partitionTask, retentionTask],
  api: (container) => ({ retention: retentionApi(container) }),
  on: {
    // Counted once the transaction that created the issue committed (a rolled-back batch created none).
    "issue.created": (_event, scope, { container }) => scope.afterCommit(() => issuesCreated(container).inc()),
  },
  close: ({ container }) => container.resolve(EventProcessorToken).drain(),
});

function issuesCreated(container: DependencyContainer) {
  return container.resolve(Metrics).counter("issues_created_total", "Issues created (the first event of a new group)");
}

/** The ingest port: where the ingest plugin hands events, directly or through its queue. */
export {
  EventPayloadProcessorToken,
  EventSinkToken,
  EventStoreToken,
  type CaptureOptions,
  type EventPayloadProcessor,
  type EventSink,
  type EventStore,
  type NormalizedEvent,
  type ProjectRef,
  type StorableEvent,
} from "./ingest/port.js";
/**
 * Validation and input repair of one event, pure (no database): what `EventStore.normalize` runs,
 * for an ingest worker thread that has no container (docs/ingest.md).
 */
export { normalizeEvent } from "./grouping/index.js";
export { type IssueLookup, IssueRepositoryToken, IssueWorkflowToken } from "./tokens.js";
export type * from "./domain-events.js";
export { issueLinks } from "./urls.js";
/** Sentry's issue search syntax (`is:unresolved level:error …`), which metric alert queries are written in too. */
export { parseSearchQuery } from "./search/parser.js";
export type {
  IssueStatus,
  ReleasesTable,
  IssuesTable,
  IssueHashesTable,
  EventsTable,
  IssueUsersTable,
  IssueFacetTables,
  IssueActivityTable,
  IssueUserStateTable,
  IssueCommentsTable,
  EventIdsTable,
  Issue,
  StoredEvent,
  IssueActivity,
  IssueComment,
} from "./tables.js";
