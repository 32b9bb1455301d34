import type { DependencyContainer } from "tsyringe";
import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, Metrics } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { EventStoreToken, IssueGroupingToken, IssueRetentionToken } from "../event-store/index.js";
import { IssueIntake } from "./intake/record-events.js";
import { IssueRepository } from "./repository.js";
import { issueEndpoints } from "./endpoints.js";
import { issueRetention } from "./retention.js";
import { purgeDeletedIssuesTask, snoozeExpiryTask } from "./tasks.js";
import { CommentService } from "./comments/service.js";
import {
  CommentServiceToken,
  IssueRepositoryToken,
  IssueReporterToken,
  IssueSubscriptionsToken,
  IssueTombstonesToken,
  IssueWorkflowToken,
  IssueMergeParticipantToken,
  IssueMergerToken,
} from "./tokens.js";
import { IssueTombstones } from "./tombstones/service.js";
import { IssueMerger } from "./merge/service.js";
import { IssueReporter } from "./reported/service.js";
import { IssueWorkflow } from "./workflow/service.js";
import { issuesMigrations } from "./migrations.js";
import { issuesOwnMigrations } from "./subscriptions/migrations.js";
import { IssueSubscriptions } from "./subscriptions/service.js";

/**
 * How long a project's tombstoned hashes stay cached per instance: a discard or an undiscard made on
 * another instance applies to this one's ingest within this (docs/issues.md, "Discard").
 */
export const TOMBSTONE_CACHE_TTL_MS = 10_000;

/**
 * Triage: issues, their state and workflow, search, the list, comments and the issue-scoped event
 * reads (through the event store's interface); the issues' side of the event store's write path
 * (the {@link IssueGrouping} port) and of its retention.
 */
export const issuesPlugin = definePlugin({
  id: "issues",
  coreLedgerMigrations: issuesMigrations,
  migrations: issuesOwnMigrations,
  dependencies: ["organizations", "event-store"],
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(container, IssueRepositoryToken, () => new IssueRepository(db));
    registerFactory(container, IssueSubscriptionsToken, () => new IssueSubscriptions());
    registerFactory(
      container,
      IssueWorkflowToken,
      (c) => new IssueWorkflow(db, c.resolve(IssueRepositoryToken), c.resolve(EventBus), c.resolve(Clock)),
    );
    registerFactory(
      container,
      IssueGroupingToken,
      (c) => new IssueIntake(c.resolve(EventBus), () => c.resolve(EventStoreToken)),
    );
    registerFactory(
      container,
      IssueReporterToken,
      (c) =>
        new IssueReporter(
          () => c.resolve(EventStoreToken),
          () => c.resolve(IssueWorkflowToken),
        ),
    );
    container.register(IssueRetentionToken, { useValue: issueRetention });
    registerFactory(
      container,
      IssueTombstonesToken,
      (c) => new IssueTombstones(db, c.resolve(Clock), TOMBSTONE_CACHE_TTL_MS),
    );
    registerFactory(
      container,
      IssueMergerToken,
      (c) =>
        new IssueMerger({
          db,
          issues: c.resolve(IssueRepositoryToken),
          store: () => c.resolve(EventStoreToken),
          participants: () =>
            c.isRegistered(IssueMergeParticipantToken, true) ? c.resolveAll(IssueMergeParticipantToken) : [],
          events: c.resolve(EventBus),
          clock: c.resolve(Clock),
        }),
    );
    issuesCreated(container); // exists at 0 from the start
    registerFactory(
      container,
      CommentServiceToken,
      (c) => new CommentService(db, c.resolve(IssueRepositoryToken), c.resolve(EventBus), c.resolve(Clock)),
    );
  },
  endpoints: issueEndpoints,
  tasks: [snoozeExpiryTask, purgeDeletedIssuesTask],
  on: {
    // Counted once the transaction that created the issue committed (a rolled-back batch created none).
    "issue.created": (_event, scope, { container }) => scope.afterCommit(() => issuesCreated(container).inc()),
  },
});

function issuesCreated(container: DependencyContainer) {
  return container.resolve(Metrics).counter("issues_created_total", "Issues created (the first event of a new group)");
}

export {
  type DiscardedHashes,
  type IssueLookup,
  IssueRepositoryToken,
  IssueReporterToken,
  IssueSubscriptionsToken,
  type IssueUserReportCounts,
  IssueUserReportCountsToken,
  IssueTombstonesToken,
  IssueWorkflowToken,
  IssueMergeParticipantToken,
  IssueMergerToken,
} from "./tokens.js";
export type { IssueMergeChange, IssueMergeParticipant, IssueUnmergeChange } from "./merge/participant.js";
export type { IssueMerger } from "./merge/service.js";
export type { IssueReporter, ReportedEvent } from "./reported/service.js";
export type { IssueSummary } from "./repository.js";
/** Sentry's legacy `/api/0/issues/{issue_id}/…` twin of an issue endpoint another plugin adds. */
export { legacyTwin as legacyIssueEndpoint } from "./legacy/routes.js";
export type { IssueSubscriptions, SubscriptionReason } from "./subscriptions/service.js";
export type * from "./domain-events.js";
export { issueLinks } from "./urls.js";
/** Sentry's issue search syntax (`is:unresolved level:error …`), which metric alert queries are written in too. */
export { parseSearchQuery } from "./search/parser.js";
export type {
  IssueStatus,
  ReleasesTable,
  IssuesTable,
  IssueHashesTable,
  IssueUsersTable,
  IssueFacetTables,
  IssueActivityTable,
  IssueUserStateTable,
  IssueCommentsTable,
  IssueTombstonesTable,
  Issue,
  IssueActivity,
  IssueComment,
} from "./tables.js";
