import { type Insertable, type Kysely, sql } from "kysely";
import { Db } from "../../../container/tokens.js";
import type { Database } from "../../../db/schema.js";
import type { AppRequestLogTable } from "../tables.js";
import type { TaskDefinition } from "../../../worker/task.js";

/**
 * An app's request log keeps its newest requests and, besides them, the newest errors of each
 * event type: an app's recent failures stay readable under a stream of successes.
 */
export const REQUEST_LOG_KEEP = 100;

/** One webhook request made to an app, with its answer (bodies already truncated). */
export type AppRequest = Omit<Insertable<AppRequestLogTable>, "id">;

/**
 * Adds requests to their apps' logs, in the caller's transaction (the webhooks plugin records its
 * deliveries' attempts with their outcomes). A request to an app deleted meanwhile is dropped:
 * `installation.deleted` may outlive its app. The apps are key-share locked so none can vanish
 * before the insert; one locked by a deletion in progress is skipped (its log goes with it):
 * waiting for it would fail the foreign key (or deadlock) and roll back the caller's transaction.
 */
export async function recordAppRequests(db: Kysely<Database>, requests: readonly AppRequest[]): Promise<void> {
  if (requests.length === 0) return;
  const appIds = [...new Set(requests.map((request) => request.app_id))];
  const apps = await db.selectFrom("apps").select("id").where("id", "in", appIds).forKeyShare().skipLocked().execute();
  const existing = new Set(apps.map((app) => Number(app.id)));
  const rows = requests.filter((request) => existing.has(request.app_id));
  if (rows.length > 0) await db.insertInto("app_request_log").values(rows).execute();
}

/** Trims each app's request log to what it shows: the newest requests plus the newest errors per event type. */
export const appRequestLogPruneTask: TaskDefinition = {
  id: "installations.request-log-prune",
  intervalMs: 3_600_000,
  run: async ({ container }) => {
    await container
      .resolve(Db)
      .deleteFrom("app_request_log")
      .where("id", "in", (eb) =>
        eb
          .selectFrom(
            eb
              .selectFrom("app_request_log")
              .select([
                "id",
                sql<number>`row_number() OVER (PARTITION BY app_id ORDER BY date_created DESC, id DESC)`.as("overall"),
                sql<number>`row_number() OVER (PARTITION BY app_id, event_type, is_error ORDER BY date_created DESC, id DESC)`.as(
                  "per_type",
                ),
                "is_error",
              ])
              .as("ranked"),
          )
          .select("ranked.id")
          .where("ranked.overall", ">", REQUEST_LOG_KEEP)
          .where((w) => w.or([w("ranked.is_error", "=", false), w("ranked.per_type", ">", REQUEST_LOG_KEEP)])),
      )
      .execute();
    return false;
  },
};
