import type { Insertable, Kysely } from "kysely";
import type { AppsTable, Database } from "../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";

/** Apps and their installations. Installation queries are scoped by organization. */
export class InstallationRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  insertApp(values: Insertable<AppsTable>) {
    return this.db().insertInto("apps").values(values).returningAll().executeTakeFirstOrThrow();
  }

  findAppBySlug(slug: string) {
    return this.db().selectFrom("apps").selectAll().where("slug", "=", slug).executeTakeFirst();
  }

  /** Installs an app once per organization; a repeat returns the existing installation. */
  async install(organizationId: number, appId: number, values: { uuid: string; code: string; now: Date }, db = this.db()) {
    const inserted = await db
      .insertInto("app_installations")
      .values({ uuid: values.uuid, app_id: appId, organization_id: organizationId, status: "installed", code: values.code, date_created: values.now })
      .onConflict((oc) => oc.columns(["organization_id", "app_id"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { installation: inserted, created: true };
    const existing = await db
      .selectFrom("app_installations")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("app_id", "=", appId)
      .executeTakeFirstOrThrow();
    return { installation: existing, created: false };
  }

  /** One organization's installations with their app, newest first. */
  listInstallations(organizationId: number, bound: KeysetBound) {
    const condition = keysetCondition(bound, "i.date_created", "i.id");
    let query = this.db()
      .selectFrom("app_installations as i")
      .innerJoin("apps as a", "a.id", "i.app_id")
      .innerJoin("organizations as o", "o.id", "i.organization_id")
      .select(["i.id", "i.uuid", "i.status", "i.date_created", "a.uuid as app_uuid", "a.slug as app_slug", "a.name as app_name", "o.slug as organization_slug"])
      .where("i.organization_id", "=", organizationId);
    if (condition) query = query.where(condition);
    return query.orderBy("i.date_created", bound.order).orderBy("i.id", bound.order).limit(bound.limit).execute();
  }
}

export type InstallationListRow = Awaited<ReturnType<InstallationRepository["listInstallations"]>>[number];
