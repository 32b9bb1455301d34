import { sql } from "kysely";
import type { IssueMergeParticipant } from "../issues/index.js";

/**
 * External issue links in merges: a child's link moves to the parent, unless the parent (or an
 * older link among the children) already has one from the same installation — an installation
 * links an issue once, and the parent's link is the one its tracker already points to. Links
 * stay with the source of an unmerge: the tracker's item is about the issue it was filed for.
 */
export const externalIssuesMergeParticipant: IssueMergeParticipant = {
  id: "external-issues",
  async merge(trx, { organizationId, parentId, childIds }) {
    const issues = [parentId, ...childIds];
    // Per installation, the link to keep: the parent's, else the oldest of the children's.
    await trx
      .deleteFrom("external_issues")
      .where("organization_id", "=", organizationId)
      .where("issue_id", "in", issues)
      .where(
        "id",
        "not in",
        trx
          .selectFrom("external_issues")
          .select(sql<number>`(array_agg(id ORDER BY (issue_id = ${parentId}) DESC, date_created, id))[1]`.as("id"))
          .where("organization_id", "=", organizationId)
          .where("issue_id", "in", issues)
          .groupBy("installation_id"),
      )
      .execute();
    await trx
      .updateTable("external_issues")
      .set({ issue_id: parentId })
      .where("organization_id", "=", organizationId)
      .where("issue_id", "in", [...childIds])
      .execute();
  },
};
