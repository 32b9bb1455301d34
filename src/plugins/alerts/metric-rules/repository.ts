import type { Kysely, Selectable } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { MetricAlertIncident, MetricAlertIncidentActivityTable, MetricAlertRule } from "../tables.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
import { type EventTerm, eventQueryCondition } from "./query.js";

/** A rule's columns as written (triggers as JSON text). */
export interface MetricRuleColumns {
  name: string;
  project_ids: number[];
  query: string;
  aggregate: MetricAlertRule["aggregate"];
  time_window: number;
  threshold_type: MetricAlertRule["threshold_type"];
  triggers: string;
  resolve_threshold: number | null;
  status: MetricAlertRule["status"];
}

export type IncidentActivity = Selectable<MetricAlertIncidentActivityTable>;

/** Metric alert rules, their incidents, and the aggregate over events they watch. */
export class MetricRuleRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  insert(organizationId: number, columns: MetricRuleColumns, now: Date): Promise<MetricAlertRule> {
    return this.db()
      .insertInto("metric_alert_rules")
      .values({ ...columns, organization_id: organizationId, date_created: now, next_evaluation_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(organizationId: number, id: number): Promise<MetricAlertRule | undefined> {
    return this.db()
      .selectFrom("metric_alert_rules")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  list(organizationId: number, bound: KeysetBound): Promise<MetricAlertRule[]> {
    let query = this.db().selectFrom("metric_alert_rules").selectAll().where("organization_id", "=", organizationId);
    const condition = keysetCondition(bound, "date_created", "id");
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("id", bound.order).limit(bound.limit).execute();
  }

  update(organizationId: number, id: number, columns: MetricRuleColumns): Promise<MetricAlertRule | undefined> {
    return this.db()
      .updateTable("metric_alert_rules")
      .set(columns)
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(organizationId: number, id: number): Promise<void> {
    await this.db()
      .deleteFrom("metric_alert_rules")
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .execute();
  }

  /** Projects of the organization by slug (what is missing from the result is unknown or foreign). */
  projectsBySlug(organizationId: number, slugs: readonly string[]): Promise<Array<{ id: number; slug: string }>> {
    return this.db()
      .selectFrom("projects")
      .select(["id", "slug"])
      .where("organization_id", "=", organizationId)
      .where("slug", "in", slugs)
      .execute();
  }

  /** Slugs by project id, for serialising rules and payloads. */
  async projectSlugs(
    organizationId: number,
    ids: readonly number[],
    db: Kysely<Database> = this.db(),
  ): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom("projects")
      .select(["id", "slug"])
      .where("organization_id", "=", organizationId)
      .where("id", "in", [...new Set(ids)])
      .execute();
    return new Map(rows.map((row) => [row.id, row.slug]));
  }

  /** Active rules due for evaluation, locked for this transaction; rules another worker holds are skipped. */
  claimDue(db: Kysely<Database>, now: Date, limit: number): Promise<MetricAlertRule[]> {
    return db
      .selectFrom("metric_alert_rules")
      .selectAll()
      .where("status", "=", "active")
      .where("next_evaluation_at", "<=", now)
      .orderBy("next_evaluation_at")
      .orderBy("id")
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  async scheduleNext(db: Kysely<Database>, ruleId: number, next: Date): Promise<void> {
    await db.updateTable("metric_alert_rules").set({ next_evaluation_at: next }).where("id", "=", ruleId).execute();
  }

  /**
   * The rule's aggregate over events with a time in (since, until]. Issues seen since the window
   * opened are found first (issues_by_last_seen), then their events by time (events_by_issue):
   * the events table is never scanned as a whole.
   */
  async aggregate(
    db: Kysely<Database>,
    rule: MetricAlertRule,
    terms: readonly EventTerm[],
    since: Date,
    until: Date,
  ): Promise<number> {
    if (rule.project_ids.length === 0) return 0;
    const row = await db
      .selectFrom("events as e")
      .select((eb) =>
        rule.aggregate === "count()"
          ? eb.fn.countAll<number | string>().as("n")
          : eb.fn.count<number | string>("e.user_key").distinct().as("n"),
      )
      .where("e.issue_id", "in", (eb) =>
        eb
          .selectFrom("issues as i")
          .select("i.id")
          .where("i.organization_id", "=", rule.organization_id)
          .where("i.project_id", "in", rule.project_ids)
          .where("i.last_seen", ">", since)
          .where("i.deleted_at", "is", null),
      )
      .where("e.project_id", "in", rule.project_ids)
      .where("e.timestamp", ">", since)
      .where("e.timestamp", "<=", until)
      .where((eb) => eventQueryCondition(eb, terms))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  openIncident(db: Kysely<Database>, ruleId: number): Promise<MetricAlertIncident | undefined> {
    return db
      .selectFrom("metric_alert_incidents")
      .selectAll()
      .where("rule_id", "=", ruleId)
      .where("status", "<>", "resolved")
      .executeTakeFirst();
  }

  /** The organization's next incident number (the sequence row is locked until commit). */
  async nextIdentifier(db: Kysely<Database>, organizationId: number): Promise<number> {
    const row = await db
      .insertInto("metric_alert_sequences")
      .values({ organization_id: organizationId, last_identifier: 1 })
      .onConflict((oc) =>
        oc
          .column("organization_id")
          .doUpdateSet((eb) => ({ last_identifier: eb(eb.ref("metric_alert_sequences.last_identifier"), "+", 1) })),
      )
      .returning("last_identifier")
      .executeTakeFirstOrThrow();
    return row.last_identifier;
  }

  insertIncident(db: Kysely<Database>, values: Omit<MetricAlertIncident, "id">): Promise<MetricAlertIncident> {
    return db.insertInto("metric_alert_incidents").values(values).returningAll().executeTakeFirstOrThrow();
  }

  updateIncident(
    db: Kysely<Database>,
    id: number,
    values: Pick<MetricAlertIncident, "status" | "date_closed">,
  ): Promise<MetricAlertIncident> {
    return db
      .updateTable("metric_alert_incidents")
      .set(values)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async recordActivity(
    db: Kysely<Database>,
    incidentId: number,
    type: IncidentActivity["type"],
    value: number,
    at: Date,
  ): Promise<void> {
    await db
      .insertInto("metric_alert_incident_activity")
      .values({ incident_id: incidentId, type, value, date_created: at })
      .execute();
  }

  listIncidents(ruleId: number, bound: KeysetBound): Promise<MetricAlertIncident[]> {
    let query = this.db().selectFrom("metric_alert_incidents").selectAll().where("rule_id", "=", ruleId);
    const condition = keysetCondition(bound, "date_started", "id");
    if (condition) query = query.where(condition);
    return query.orderBy("date_started", bound.order).orderBy("id", bound.order).limit(bound.limit).execute();
  }

  async activities(incidentIds: readonly number[]): Promise<IncidentActivity[]> {
    if (incidentIds.length === 0) return [];
    return this.db()
      .selectFrom("metric_alert_incident_activity")
      .selectAll()
      .where("incident_id", "in", incidentIds)
      .orderBy("id")
      .execute();
  }
}
