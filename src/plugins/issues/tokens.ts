import type { InjectionToken } from "tsyringe";
import type { CommentService } from "./comments/service.js";
import type { IssueRepository } from "./repository.js";
import type { IssueSubscriptions } from "./subscriptions/service.js";
import type { IssueWorkflow } from "./workflow/service.js";
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
