import { type Insertable, type Kysely, sql, type Updateable } from "kysely";
import type { AppsTable, Database } from "../../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
import { REQUEST_LOG_KEEP } from "../request-log/request-log.js";

/**
 * The newest requests kept and shown per app, and the newest errors per event type
 * (docs/webhooks.md, "Delivery").
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Apps and their installations. Installation queries are scoped by organization or by UUID. */
export class InstallationRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  insertApp(values: Insertable<AppsTable>) {
    return this.db().insertInto("apps").values(values).returningAll().executeTakeFirstOrThrow();
  }

  findAppBySlug(slug: string, db = this.db()) {
    return db.selectFrom("apps").selectAll().where("slug", "=", slug).executeTakeFirst();
  }

  /** One organization's own apps, newest first. */
  listApps(organizationId: number, bound: KeysetBound) {
    const condition = keysetCondition(bound, "date_created", "id");
    let query = this.db().selectFrom("apps").selectAll().where("organization_id", "=", organizationId);
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("id", bound.order).limit(bound.limit).execute();
  }

  updateApp(appId: number, values: Updateable<AppsTable>, db: Kysely<Database> = this.db()) {
    return db.updateTable("apps").set(values).where("id", "=", appId).returningAll().executeTakeFirstOrThrow();
  }

  /** Deletes an app; installations, their tokens, links and the request log go with it (ON DELETE CASCADE). */
  async deleteApp(appId: number, db: Kysely<Database> = this.db()): Promise<void> {
    await db.deleteFrom("apps").where("id", "=", appId).execute();
  }

  /**
   * Installs an app once per organization, consenting to `consentedScopes`; a repeat returns the
   * existing installation with the consent it has.
   */
  async install(
    organizationId: number,
    appId: number,
    values: { uuid: string; code: string; consentedScopes: string[]; now: Date },
    db = this.db(),
  ) {
    const inserted = await db
      .insertInto("app_installations")
      .values({
        uuid: values.uuid,
        app_id: appId,
        organization_id: organizationId,
        status: "installed",
        code: values.code,
        consented_scopes: values.consentedScopes,
        date_created: values.now,
      })
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

  /** An installation by UUID (anything else is simply not found); `lock` holds its row until the transaction ends. */
  async findInstallation(uuid: string, db: Kysely<Database> = this.db(), options: { lock?: boolean } = {}) {
    if (!UUID.test(uuid)) return undefined;
    const query = db.selectFrom("app_installations").selectAll().where("uuid", "=", uuid.toLowerCase());
    return (options.lock ? query.forUpdate() : query).executeTakeFirst();
  }

  /**
   * `lock` holds the app row until the transaction ends: `true` makes installs and other changes
   * of the app wait; `"share"` makes changes of the app wait, not other readers. `true` is FOR NO
   * KEY UPDATE, not FOR UPDATE: rows that only refer to the app (a delivery worker writing the app
   * request log, whose foreign key takes a key-share lock) must not wait on it — a worker holding
   * its delivery then waited for the app while the app's change waited for that delivery.
   */
  findAppById(appId: number, db: Kysely<Database> = this.db(), options: { lock?: boolean | "share" } = {}) {
    const query = db.selectFrom("apps").selectAll().where("id", "=", appId);
    if (options.lock === "share") return query.forShare().executeTakeFirst();
    return (options.lock ? query.forNoKeyUpdate() : query).executeTakeFirst();
  }

  installationsOfApp(appId: number, db: Kysely<Database>) {
    return db
      .selectFrom("app_installations")
      .selectAll()
      .where("app_id", "=", appId)
      .orderBy("id")
      .forUpdate()
      .execute();
  }

  /** Deletes an installation; its tokens and external issue links go with it (ON DELETE CASCADE). */
  async deleteInstallation(installationId: number, db: Kysely<Database>): Promise<void> {
    await db.deleteFrom("app_installations").where("id", "=", installationId).execute();
  }

  /** Uses the one-time grant code: true for exactly one caller, however many race for it. */
  async consumeCode(installationId: number, code: string, db: Kysely<Database>): Promise<boolean> {
    const used = await db
      .updateTable("app_installations")
      .set({ code: null })
      .where("id", "=", installationId)
      .where("code", "=", code)
      .returning("id")
      .executeTakeFirst();
    return used !== undefined;
  }

  /** Records what these installations (all of one app) consented to. */
  async setConsent(installationIds: readonly number[], consentedScopes: string[], db: Kysely<Database>): Promise<void> {
    if (installationIds.length === 0) return;
    await db
      .updateTable("app_installations")
      .set({ consented_scopes: consentedScopes })
      .where("id", "in", installationIds)
      .execute();
  }

  /**
   * Every installation token of the app (or of one installation) carries its installation's
   * consent, which is kept a subset of the app's scopes: so narrowing an app narrows every token at
   * once, and widening it widens none.
   */
  async syncTokenScopes(target: { appId: number } | { installationId: number }, db: Kysely<Database>): Promise<void> {
    await db
      .updateTable("api_tokens as t")
      .from("app_installations as i")
      .set((eb) => ({ scopes: eb.ref("i.consented_scopes") }))
      .whereRef("t.installation_id", "=", "i.id")
      .where("t.kind", "=", "installation")
      .where("appId" in target ? "i.app_id" : "i.id", "=", "appId" in target ? target.appId : target.installationId)
      .execute();
  }

  /** One organization's installations with their app, newest first. */
  listInstallations(organizationId: number, bound: KeysetBound) {
    const condition = keysetCondition(bound, "i.date_created", "i.id");
    let query = this.installationRows(this.db()).where("i.organization_id", "=", organizationId);
    if (condition) query = query.where(condition);
    return query.orderBy("i.date_created", bound.order).orderBy("i.id", bound.order).limit(bound.limit).execute();
  }

  /** One installation with its app, as the list shows it. */
  installationRow(installationId: number, db: Kysely<Database> = this.db()) {
    return this.installationRows(db).where("i.id", "=", installationId).executeTakeFirstOrThrow();
  }

  private installationRows(db: Kysely<Database>) {
    return db
      .selectFrom("app_installations as i")
      .innerJoin("apps as a", "a.id", "i.app_id")
      .innerJoin("organizations as o", "o.id", "i.organization_id")
      .select([
        "i.id",
        "i.uuid",
        "i.status",
        "i.date_created",
        "i.consented_scopes",
        "a.uuid as app_uuid",
        "a.slug as app_slug",
        "a.name as app_name",
        "a.scopes as app_scopes",
        "o.slug as organization_slug",
      ]);
  }

  /** Apps installed in an organization that declare UI components, oldest installation first. */
  installedSchemas(organizationId: number) {
    return this.db()
      .selectFrom("app_installations as i")
      .innerJoin("apps as a", "a.id", "i.app_id")
      .select(["a.uuid", "a.slug", "a.name", "a.schema"])
      .where("i.organization_id", "=", organizationId)
      .where("a.schema", "is not", null)
      .orderBy("i.date_created")
      .orderBy("i.id")
      .execute();
  }

  /**
   * An app's request log as it is kept: the newest 100 requests, plus the newest 100 errors of
   * each event type; newest first.
   */
  requestLog(appId: number, filter: { eventType?: string; errorsOnly: boolean }) {
    let ranked = this.db()
      .selectFrom("app_request_log")
      .select([
        "id",
        sql<number>`row_number() OVER (ORDER BY date_created DESC, id DESC)`.as("overall"),
        sql<number>`row_number() OVER (PARTITION BY event_type, is_error ORDER BY date_created DESC, id DESC)`.as(
          "per_type",
        ),
      ])
      .where("app_id", "=", appId);
    if (filter.eventType !== undefined) ranked = ranked.where("event_type", "=", filter.eventType);
    if (filter.errorsOnly) ranked = ranked.where("is_error", "=", true);
    return this.db()
      .selectFrom(ranked.as("ranked"))
      .innerJoin("app_request_log as l", "l.id", "ranked.id")
      .leftJoin("organizations as o", "o.id", "l.organization_id")
      .select([
        "l.id",
        "l.date_created",
        "l.response_code",
        "l.webhook_url",
        "l.event_type",
        "l.delivery_id",
        "l.attempt",
        "l.request_body",
        "l.response_body",
        "o.slug as organization_slug",
        "o.name as organization_name",
      ])
      .where((eb) =>
        eb.or([
          eb("ranked.overall", "<=", REQUEST_LOG_KEEP),
          eb.and([eb("l.is_error", "=", true), eb("ranked.per_type", "<=", REQUEST_LOG_KEEP)]),
        ]),
      )
      .orderBy("l.date_created", "desc")
      .orderBy("l.id", "desc")
      .execute();
  }
}

export type InstallationListRow = Awaited<ReturnType<InstallationRepository["listInstallations"]>>[number];
export type RequestLogRow = Awaited<ReturnType<InstallationRepository["requestLog"]>>[number];
export type InstalledSchemaRow = Awaited<ReturnType<InstallationRepository["installedSchemas"]>>[number];
