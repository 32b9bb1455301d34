import type { InjectionToken } from "tsyringe";
import type { CommentService } from "./comments/service.js";
import type { IssueRepository } from "./repository.js";
import type { IssueReporter } from "./reported/service.js";
import type { IssueSubscriptions } from "./subscriptions/service.js";
import type { IssueWorkflow } from "./workflow/service.js";
import type { IssueTombstones } from "./tombstones/service.js";
import type { IssueMerger } from "./merge/service.js";
import type { IssueMergeParticipant } from "./merge/participant.js";
import type { IssueUserReportCounts } from "./user-reports.js";

export type { IssueUserReportCounts } from "./user-reports.js";

/**
 * What other plugins use of the repository: finding an organization's issue by id or short id
 * (external issue links), a few fields of many issues at once (user feedback).
 */
export type IssueLookup = Pick<IssueRepository, "find" | "summaries">;

export const IssueUserReportCountsToken: InjectionToken<IssueUserReportCounts> = Symbol(
  "faultline.IssueUserReportCounts",
);

export const IssueRepositoryToken: InjectionToken<IssueRepository> = Symbol("faultline.IssueRepository");
export const IssueWorkflowToken: InjectionToken<IssueWorkflow> = Symbol("faultline.IssueWorkflow");
export const CommentServiceToken: InjectionToken<CommentService> = Symbol("faultline.CommentService");
/** Who follows an issue: the workflow notifications' recipients. */
export const IssueSubscriptionsToken: InjectionToken<IssueSubscriptions> = Symbol("faultline.IssueSubscriptions");
/** Discarded issues' tombstones: recorded by a discard, listed and removed per project, read by ingest at accept. */
export const IssueTombstonesToken: InjectionToken<IssueTombstones> = Symbol("faultline.IssueTombstones");
/** What ingest asks at accept: the grouping hashes a project refuses (cached; empty for most projects). */
export type DiscardedHashes = Pick<IssueTombstones, "discardedHashes">;
/** Merges issues and splits hashes off into new ones (docs/issues.md, "Merging and unmerging"). */
export const IssueMergerToken: InjectionToken<IssueMerger> = Symbol("faultline.IssueMerger");
/**
 * Plugins owning rows keyed by issue id register an {@link IssueMergeParticipant} here (one
 * registration each; several plugins may): merges and unmerges call them in their transaction.
 */
export const IssueMergeParticipantToken: InjectionToken<IssueMergeParticipant> = Symbol(
  "faultline.IssueMergeParticipant",
);
/** Issues a feature raises and resolves itself (cron monitors' failures): docs/crons.md. */
export const IssueReporterToken: InjectionToken<IssueReporter> = Symbol("faultline.IssueReporter");
