import type { Kysely } from "kysely";
import { updateIfChanged } from "../../db/changes.js";
import type { Database } from "../../db/schema.js";
import type { ServiceHook } from "./tables.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";

/** Service hooks, always addressed through their organization and project. */
export class ServiceHookRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  insert(hook: Omit<ServiceHook, "status" | "seq">): Promise<ServiceHook> {
    return this.db().insertInto("service_hooks").values(hook).returningAll().executeTakeFirstOrThrow();
  }

  find(organizationId: number, projectId: number, id: string): Promise<ServiceHook | undefined> {
    return this.db()
      .selectFrom("service_hooks")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  list(
    organizationId: number,
    projectId: number,
    status: ServiceHook["status"] | undefined,
    bound: KeysetBound,
  ): Promise<ServiceHook[]> {
    let query = this.db()
      .selectFrom("service_hooks")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId);
    if (status) query = query.where("status", "=", status);
    const condition = keysetCondition(bound, "date_created", "seq");
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("seq", bound.order).limit(bound.limit).execute();
  }

  /** Sets the given columns; with none given, no UPDATE runs and the hook is read as it is. */
  update(
    organizationId: number,
    projectId: number,
    id: string,
    values: Partial<Pick<ServiceHook, "url" | "events" | "status">>,
  ): Promise<ServiceHook | undefined> {
    return updateIfChanged(
      values,
      (columns) =>
        this.db()
          .updateTable("service_hooks")
          .set(columns)
          .where("organization_id", "=", organizationId)
          .where("project_id", "=", projectId)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirst(),
      () => this.find(organizationId, projectId, id),
    );
  }

  /** Deletes a hook and cancels what was still to be sent to it, together. */
  async delete(organizationId: number, id: string, now: Date): Promise<void> {
    await this.db()
      .transaction()
      .execute(async (trx) => {
        await trx
          .deleteFrom("service_hooks")
          .where("organization_id", "=", organizationId)
          .where("id", "=", id)
          .execute();
        await trx
          .updateTable("deliveries")
          .set({ status: "cancelled", date_finished: now })
          .where("destination_type", "=", "service_hook")
          .where("destination_id", "=", id)
          .where("status", "=", "pending")
          .execute();
      });
  }

  /** Active hooks of a project subscribed to an event (ingest hot path: one indexed query). */
  subscribed(db: Kysely<Database>, projectId: number, event: string): Promise<ServiceHook[]> {
    return db
      .selectFrom("service_hooks")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("status", "=", "active")
      .where((eb) => eb(eb.val(event), "=", eb.fn.any("events")))
      .execute();
  }
}
