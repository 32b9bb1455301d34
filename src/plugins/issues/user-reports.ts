import type { Expression, ExpressionBuilder, Kysely } from "kysely";
import type { Database } from "../../db/schema.js";

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
