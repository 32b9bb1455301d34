import { sql } from "kysely";
import { Clock, Db, Options } from "../../../container/tokens.js";
import { tableIn } from "../../../db/identifiers.js";
import { projectRetentionCutoff } from "../../../db/retention-cutoff.js";
import type { TaskDefinition } from "../../../worker/task.js";
import { MAX_DIGEST_ATTEMPTS } from "./attempts.js";

/** Rows deleted per slice: the task runs again at once while a slice was full. */
const ROW_BATCH = 10_000;

export const QUEUE_LEFTOVERS_TASK_ID = "ingest.queue-leftovers";

/**
 * Deletes the queued events the digest gave up on (kept for inspection, docs/ingest.md) once their
 * project's retention has passed, as their events would have expired (`retention.days`, or the
 * project's own `retention_days`). Hourly, like the event store's retention; several instances may
 * run it at once (rows are claimed with `SKIP LOCKED`).
 */
export const queueLeftoversTask: TaskDefinition = {
  id: QUEUE_LEFTOVERS_TASK_ID,
  intervalMs: 3_600_000,
  run: async ({ container }) => {
    const { schema, retention } = container.resolve(Options);
    const table = tableIn(schema);
    const cutoff = projectRetentionCutoff(retention.days, container.resolve(Clock).now());
    const result = await sql`
      DELETE FROM ${table("ingest_queue")} WHERE id IN (
        SELECT q.id FROM ${table("ingest_queue")} q JOIN ${table("projects")} p ON p.id = q.project_id
        WHERE q.attempts >= ${MAX_DIGEST_ATTEMPTS} AND (q.event::jsonb ->> 'received')::timestamptz < ${cutoff}
        LIMIT ${ROW_BATCH} FOR UPDATE OF q SKIP LOCKED)`.execute(container.resolve(Db));
    return Number(result.numAffectedRows ?? 0) === ROW_BATCH;
  },
};
