import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { Database, Delivery, DeliveryAttempt } from "../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";
import type { DeliveryFilter } from "./schemas.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where a delivery would go now: its destination's current URL and secret. */
export interface Target {
  url: string;
  secret: string;
}

/** A delivery with what names its destination now (null when the hook or app is gone). */
export interface DeliveryRow extends Delivery {
  hook_project_id: number | null;
  hook_project_slug: string | null;
  app_name: string | null;
}

type Db = ExpressionBuilder<Database, "deliveries">;

/**
 * The listing's filters. `failed` means the last attempt failed, whether a retry is scheduled or
 * not: a destination that is down shows there from its first failure, not days later when the
 * retries run out. An outcome was recorded when `last_response_code` is set (0: nothing answered).
 */
function lastAttemptFailed(eb: Db) {
  return eb.and([
    eb("deliveries.last_response_code", "is not", null),
    eb.not(eb.between("deliveries.last_response_code", 200, 299)),
  ]);
}

const FILTERS: Record<DeliveryFilter, (eb: Db) => ReturnType<Db["and"]>> = {
  pending: (eb) => eb.and([eb("deliveries.status", "=", "pending")]),
  delivered: (eb) => eb.and([eb("deliveries.status", "=", "delivered")]),
  cancelled: (eb) => eb.and([eb("deliveries.status", "=", "cancelled")]),
  dead: (eb) => eb.and([eb("deliveries.status", "=", "failed")]),
  retrying: (eb) => eb.and([eb("deliveries.status", "=", "pending"), lastAttemptFailed(eb)]),
  failed: (eb) =>
    eb.or([
      eb("deliveries.status", "=", "failed"),
      eb.and([eb("deliveries.status", "=", "pending"), lastAttemptFailed(eb)]),
    ]),
};

/** An organization's deliveries, for inspection and manual redelivery. */
export class DeliveryRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** Newest first, optionally of one state. */
  list(organizationId: number, filter: DeliveryFilter | undefined, bound: KeysetBound): Promise<DeliveryRow[]> {
    const condition = keysetCondition(bound, "deliveries.date_created", "deliveries.seq");
    let query = this.#withTarget().where("deliveries.organization_id", "=", organizationId);
    if (filter) query = query.where(FILTERS[filter]);
    if (condition) query = query.where(condition);
    return query
      .orderBy("deliveries.date_created", bound.order)
      .orderBy("deliveries.seq", bound.order)
      .limit(bound.limit)
      .execute();
  }

  async find(organizationId: number, id: string): Promise<DeliveryRow | undefined> {
    if (!UUID.test(id)) return undefined;
    return this.#withTarget()
      .where("deliveries.organization_id", "=", organizationId)
      .where("deliveries.id", "=", id.toLowerCase())
      .executeTakeFirst();
  }

  /** A delivery's recorded attempts, oldest first. */
  attempts(deliveryId: string): Promise<DeliveryAttempt[]> {
    return this.db()
      .selectFrom("delivery_attempts")
      .selectAll()
      .where("delivery_id", "=", deliveryId)
      .orderBy("attempt")
      .execute();
  }

  /**
   * Deliveries with the names of their destinations: a service hook's project (hooks have no name
   * of their own), an app's name. destination_id is text for both kinds, so the app's id is cast
   * to text rather than the other way round (a hook id is no integer).
   */
  #withTarget() {
    return this.db()
      .selectFrom("deliveries")
      .leftJoin("service_hooks", (join) =>
        join
          .on("deliveries.destination_type", "=", "service_hook")
          .onRef("service_hooks.id", "=", "deliveries.destination_id"),
      )
      .leftJoin("projects", "projects.id", "service_hooks.project_id")
      .leftJoin("apps", (join) =>
        join
          .on("deliveries.destination_type", "=", "app")
          .on(sql<string>`apps.id::text`, "=", sql.ref<string>("deliveries.destination_id")),
      )
      .selectAll("deliveries")
      .select(["projects.id as hook_project_id", "projects.slug as hook_project_slug", "apps.name as app_name"]);
  }

  /**
   * The destination's current URL and secret (a rotated secret or a moved webhook must apply to a
   * redelivery too), or null when it is gone. An app delivery also needs the installation it was
   * for — an uninstalled app must not receive that organization's data again — except
   * `installation.deleted`, which is sent precisely because the installation is gone.
   */
  async currentTarget(delivery: Delivery): Promise<Target | null> {
    const db = this.db();
    // Other plugins' destinations (notification channels) keep the address they were rendered for.
    if (delivery.destination_type !== "service_hook" && delivery.destination_type !== "app")
      return { url: delivery.url, secret: delivery.secret };
    if (delivery.destination_type === "service_hook") {
      const hook = await db
        .selectFrom("service_hooks")
        .select(["url", "secret"])
        .where("id", "=", delivery.destination_id)
        .executeTakeFirst();
      return hook ?? null;
    }
    if (!/^\d{1,9}$/.test(delivery.destination_id)) return null;
    const app = await db
      .selectFrom("apps")
      .select(["webhook_url", "client_secret"])
      .where("id", "=", Number(delivery.destination_id))
      .executeTakeFirst();
    if (!app?.webhook_url) return null;
    if (delivery.event_type !== "installation.deleted" && delivery.installation_uuid !== null) {
      const installed = await db
        .selectFrom("app_installations")
        .select("id")
        .where("uuid", "=", delivery.installation_uuid)
        .executeTakeFirst();
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
