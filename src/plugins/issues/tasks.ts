import { Clock, Db, EventBus } from "../../container/tokens.js";
import { runInTransaction } from "../../db/transaction.js";
import { SYSTEM_ACTOR } from "../../events/event-bus.js";
import type { TaskDefinition } from "../../worker/task.js";
import { EventStoreToken } from "../event-store/index.js";
import { issueSnapshot } from "./snapshot.js";
import { reopen, stateColumns, stateFromRow } from "./state.js";

const SNOOZE_BATCH = 100;
const PURGE_BATCH = 1000;

/** Lifts snoozes whose time has passed even when no event arrives (activity `set_unresolved`). */
export const snoozeExpiryTask: TaskDefinition = {
  id: "issues.snooze-expiry",
  intervalMs: 15_000,
  run: ({ container }) =>
    runInTransaction(container.resolve(Db), async (scope) => {
      const now = container.resolve(Clock).now();
      const rows = await scope.trx
        .selectFrom("issues")
        .selectAll()
        .where("status", "=", "ignored")
        .where("ignore_until", "<=", now)
        .where("deleted_at", "is", null)
        .orderBy("id")
        .limit(SNOOZE_BATCH)
        .forUpdate()
        .skipLocked()
        .execute();
      const events = container.resolve(EventBus);
      for (const row of rows) {
        const state = stateFromRow(row);
        reopen(state, "ongoing");
        await scope.trx.updateTable("issues").set(stateColumns(state)).where("id", "=", state.id).execute();
        await scope.trx
          .insertInto("issue_activity")
          .values({
            organization_id: state.organizationId,
            issue_id: state.id,
            type: "set_unresolved",
            data: "{}",
            user_id: null,
            date_created: now,
          })
          .execute();
        const project = await scope.trx
          .selectFrom("projects")
          .select(["id", "slug", "name", "platform"])
          .where("id", "=", state.projectId)
          .executeTakeFirstOrThrow();
        await events.emit(scope, {
          name: "issue.unresolved",
          organizationId: state.organizationId,
          actor: SYSTEM_ACTOR,
          occurredAt: now,
          payload: { issue: issueSnapshot(state, project), reason: "snooze_expired" },
        });
      }
      return rows.length === SNOOZE_BATCH;
    }),
};

const ISSUE_TABLES = [
  "issue_users",
  "issue_environments",
  "issue_releases",
  "issue_tags",
  "issue_search_values",
  "issue_stats_hourly",
  "issue_stats_daily",
  "issue_activity",
  "issue_user_state",
  "issue_comments",
  "external_issues",
] as const;

/**
 * Purges deleted issues in slices: events a thousand at a time, then the issue's other rows.
 * One issue is claimed per slice with SKIP LOCKED, so several workers share the work.
 */
export const purgeDeletedIssuesTask: TaskDefinition = {
  id: "issues.purge",
  intervalMs: 5_000,
  run: ({ container }) =>
    runInTransaction(container.resolve(Db), async ({ trx }) => {
      const issue = await trx
        .selectFrom("issues")
        .select("id")
        .where("deleted_at", "is not", null)
        .orderBy("deleted_at")
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!issue) return false;
      const id = Number(issue.id);
      const deleted = await container.resolve(EventStoreToken).deleteIssueEvents(trx, id, PURGE_BATCH);
      if (deleted < PURGE_BATCH) {
        for (const table of ISSUE_TABLES) await trx.deleteFrom(table).where("issue_id", "=", id).execute();
        await trx.deleteFrom("issues").where("id", "=", id).execute();
      }
      return true;
    }),
};
