import type { Kysely } from "kysely";
import type { Database, Delivery, DeliveryStatus } from "../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where a delivery would go now: its destination's current URL and secret. */
export interface Target {
  url: string;
  secret: string;
}

/** An organization's deliveries, for inspection and manual redelivery. */
export class DeliveryRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** Newest first, optionally of one status. */
  list(organizationId: number, status: DeliveryStatus | undefined, bound: KeysetBound) {
    const condition = keysetCondition(bound, "date_created", "seq");
    let query = this.db().selectFrom("deliveries").selectAll().where("organization_id", "=", organizationId);
    if (status) query = query.where("status", "=", status);
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("seq", bound.order).limit(bound.limit).execute();
  }

  async find(organizationId: number, id: string): Promise<Delivery | undefined> {
    if (!UUID.test(id)) return undefined;
    return this.db().selectFrom("deliveries").selectAll().where("organization_id", "=", organizationId).where("id", "=", id.toLowerCase()).executeTakeFirst();
  }

  /**
   * The destination's current URL and secret (a rotated secret or a moved webhook must apply to a
   * redelivery too), or null when it is gone. An app delivery also needs the installation it was
   * for — an uninstalled app must not receive that organization's data again — except
   * `installation.deleted`, which is sent precisely because the installation is gone.
   */
  async currentTarget(delivery: Delivery): Promise<Target | null> {
    const db = this.db();
    if (delivery.destination_type === "service_hook") {
      const hook = await db.selectFrom("service_hooks").select(["url", "secret"]).where("id", "=", delivery.destination_id).executeTakeFirst();
      return hook ?? null;
    }
    if (!/^\d{1,9}$/.test(delivery.destination_id)) return null;
    const app = await db.selectFrom("apps").select(["webhook_url", "client_secret"]).where("id", "=", Number(delivery.destination_id)).executeTakeFirst();
    if (!app?.webhook_url) return null;
    if (delivery.event_type !== "installation.deleted" && delivery.installation_uuid !== null) {
      const installed = await db.selectFrom("app_installations").select("id").where("uuid", "=", delivery.installation_uuid).executeTakeFirst();
      if (!installed) return null;
    }
    return { url: app.webhook_url, secret: app.client_secret };
  }

  /**
   * Makes a finished delivery due again (the worker picks it up on its next poll). Guarded by
   * status, so a delivery that is pending — possibly being sent right now — is never touched.
   */
  redeliver(organizationId: number, id: string, target: Target, now: Date) {
    return this.db()
      .updateTable("deliveries")
      .set({ status: "pending", next_attempt_at: now, date_finished: null, url: target.url, secret: target.secret })
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .where("status", "!=", "pending")
      .returningAll()
      .executeTakeFirst();
  }
}
