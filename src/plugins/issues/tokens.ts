import type { Expression, ExpressionBuilder, Kysely } from "kysely";
import type { InjectionToken } from "tsyringe";
import type { Database } from "../../db/schema.js";
import type { CommentService } from "./comments/service.js";
import type { IssueRepository } from "./repository.js";
import type { IssueSubscriptions } from "./subscriptions/service.js";
import type { IssueWorkflow } from "./workflow/service.js";

/**
 * What other plugins use of the repository: finding an organization's issue by id or short id
 * (external issue links), a few fields of many issues at once (user feedback).
 */
export type IssueLookup = Pick<IssueRepository, "find" | "summaries">;

/**
 * The number of user reports of each issue (`userReportCount` of the issue shapes). The
 * user-feedback plugin registers it; without it the count is 0.
 */
export interface IssueUserReportCounts {
  /**
   * The reports of the outer statement's issue (`issues.id`), as a subquery of the statements that
   * read issues with their related data: no statement of its own. Built once into statements
   * compiled once per process (db/prepared.ts), so it must not depend on the instance.
   */
  countOfIssue(eb: ExpressionBuilder<Database, "issues">): Expression<number>;
  /** The same for issues read without their related data, one query for all of them, through `db`. */
  countByIssue(db: Kysely<Database>, issueIds: readonly number[]): Promise<Map<number, number>>;
}

export const IssueUserReportCountsToken: InjectionToken<IssueUserReportCounts> = Symbol(
  "faultline.IssueUserReportCounts",
);

export const IssueRepositoryToken: InjectionToken<IssueRepository> = Symbol("faultline.IssueRepository");
export const IssueWorkflowToken: InjectionToken<IssueWorkflow> = Symbol("faultline.IssueWorkflow");
export const CommentServiceToken: InjectionToken<CommentService> = Symbol("faultline.CommentService");
/** Who follows an issue: the workflow notifications' recipients. */
export const IssueSubscriptionsToken: InjectionToken<IssueSubscriptions> = Symbol("faultline.IssueSubscriptions");
