import { sql } from "kysely";
import { Clock, Db, Options } from "../../container/tokens.js";
import { tableIn } from "../../db/identifiers.js";
import type { TaskDefinition } from "../../worker/task.js";

/** Rows deleted per table and statement: a slice stays short; the task runs again at once while more are due. */
const ROW_BATCH = 10_000;
const TABLES = ["release_health_buckets", "release_health_unhealthy_sessions", "release_health_users"] as const;

/**
 * Deletes session counts older than their project's retention (its `retention_days`, else the
 * `retention.days` option), as events expire: a bucket is kept exactly as long as the project's
 * events are. Row by row rather than by partition (docs/release-health.md, "Retention"): these
 * tables hold one row per hour and release, per unhealthy session and per user, and deleting
 * an expired hour walks the `(project_id, bucket)` index.
 */
export const releaseHealthRetentionTask: TaskDefinition = {
  id: "release-health.retention",
  intervalMs: 3_600_000,
  run: async ({ container }) => {
    const db = container.resolve(Db);
    const options = container.resolve(Options);
    const now = container.resolve(Clock).now();
    let more = false;
    const table = tableIn(options.schema);
    for (const name of TABLES) {
      // A bucket of a project whose retention it has passed; ctid: the rows themselves, whatever their key.
      const expired = await sql`
        DELETE FROM ${table(name)} WHERE ctid IN (
          SELECT t.ctid FROM ${table(name)} t JOIN ${table("projects")} p ON p.id = t.project_id
          WHERE t.bucket < ${now}::timestamptz - make_interval(days => coalesce(p.retention_days, ${options.retention.days}))
          LIMIT ${ROW_BATCH})`.execute(db);
      if (Number(expired.numAffectedRows ?? 0) >= ROW_BATCH) more = true;
    }
    return more;
  },
};
