import type { InjectionToken } from "tsyringe";
import type { CommentService } from "./comments/service.js";
import type { IssueRepository } from "./repository.js";
import type { IssueReporter } from "./reported/service.js";
import type { IssueSubscriptions } from "./subscriptions/service.js";
import type { IssueWorkflow } from "./workflow/service.js";

/** What other plugins (external issue links) use of the repository: finding an organization's issue by id or short id. */
export type IssueLookup = Pick<IssueRepository, "find">;

export const IssueRepositoryToken: InjectionToken<IssueRepository> = Symbol("faultline.IssueRepository");
export const IssueWorkflowToken: InjectionToken<IssueWorkflow> = Symbol("faultline.IssueWorkflow");
export const CommentServiceToken: InjectionToken<CommentService> = Symbol("faultline.CommentService");
/** Who follows an issue: the workflow notifications' recipients. */
export const IssueSubscriptionsToken: InjectionToken<IssueSubscriptions> = Symbol("faultline.IssueSubscriptions");
/** Issues a feature raises and resolves itself (cron monitors' failures): docs/crons.md. */
export const IssueReporterToken: InjectionToken<IssueReporter> = Symbol("faultline.IssueReporter");
