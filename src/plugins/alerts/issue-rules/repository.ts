import { type Kysely, sql } from "kysely";
import { updateIfChanged } from "../../../db/changes.js";
import type { Database } from "../../../db/schema.js";
import type { IssueAlertRule } from "../tables.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
import type { IssueRuleInput } from "./schemas.js";

interface RuleColumns {
  name: string;
  action_match: IssueAlertRule["action_match"];
  conditions: string;
  filters: string;
  frequency: number;
  environment: string | null;
  status: IssueAlertRule["status"];
  actions: string | null;
}

/** Rule fields as columns (conditions and filters as JSON text, as Kysely writes json). */
function ruleColumns(input: Partial<IssueRuleInput>): Partial<RuleColumns> {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.actionMatch !== undefined && { action_match: input.actionMatch }),
    ...(input.conditions !== undefined && { conditions: JSON.stringify(input.conditions) }),
    ...(input.filters !== undefined && { filters: JSON.stringify(input.filters) }),
    ...(input.frequency !== undefined && { frequency: input.frequency }),
    ...(input.environment !== undefined && { environment: input.environment }),
    ...(input.status !== undefined && { status: input.status }),
    // No actions: the rule keeps the behaviour of rules made before actions (hooks and apps).
    ...(input.actions !== undefined && { actions: input.actions.length === 0 ? null : JSON.stringify(input.actions) }),
  };
}

/** Issue alert rules, their firing state and the per-minute counters `event_frequency` reads. */
export class IssueRuleRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  insert(organizationId: number, projectId: number, input: IssueRuleInput, now: Date): Promise<IssueAlertRule> {
    const columns = ruleColumns(input) as RuleColumns;
    return this.db()
      .insertInto("issue_alert_rules")
      .values({ ...columns, organization_id: organizationId, project_id: projectId, date_created: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(projectId: number, id: number): Promise<IssueAlertRule | undefined> {
    return this.db()
      .selectFrom("issue_alert_rules")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  list(projectId: number, bound: KeysetBound): Promise<IssueAlertRule[]> {
    let query = this.db().selectFrom("issue_alert_rules").selectAll().where("project_id", "=", projectId);
    const condition = keysetCondition(bound, "date_created", "id");
    if (condition) query = query.where(condition);
    return query.orderBy("date_created", bound.order).orderBy("id", bound.order).limit(bound.limit).execute();
  }

  update(projectId: number, id: number, values: Partial<IssueRuleInput>): Promise<IssueAlertRule | undefined> {
    return updateIfChanged(
      ruleColumns(values),
      (columns) =>
        this.db()
          .updateTable("issue_alert_rules")
          .set(columns)
          .where("project_id", "=", projectId)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirst(),
      () => this.find(projectId, id),
    );
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db().deleteFrom("issue_alert_rules").where("project_id", "=", projectId).where("id", "=", id).execute();
  }

  /** The active rules of a project, oldest first (the order of `triggering_rules`). */
  active(db: Kysely<Database>, projectId: number): Promise<IssueAlertRule[]> {
    return db
      .selectFrom("issue_alert_rules")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("status", "=", "active")
      .orderBy("id")
      .execute();
  }

  /** Events of an issue in minute buckets from `since` on (one environment, or all when null). */
  async countSince(db: Kysely<Database>, issueId: number, since: Date, environment: string | null): Promise<number> {
    let query = db
      .selectFrom("issue_stats_minutely")
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>("count"), sql<number>`0`).as("n"))
      .where("issue_id", "=", issueId)
      .where("bucket", ">=", since);
    if (environment !== null) query = query.where("environment", "=", environment);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Claims a firing of each rule for the issue at `at`: a rule whose last firing for it is less
   * than its frequency ago is refused. One upsert; returns the ids that may fire. The issue row is
   * locked by the ingest transaction, so concurrent batches cannot both claim.
   */
  async claim(db: Kysely<Database>, ruleIds: readonly number[], issueId: number, at: Date): Promise<Set<number>> {
    if (ruleIds.length === 0) return new Set();
    const rows = await db
      .insertInto("issue_alert_fires")
      .values(ruleIds.map((ruleId) => ({ rule_id: ruleId, issue_id: issueId, last_fired_at: at })))
      .onConflict((oc) =>
        oc
          .columns(["rule_id", "issue_id"])
          .doUpdateSet((eb) => ({ last_fired_at: eb.ref("excluded.last_fired_at") }))
          .where((eb) =>
            eb(
              sql<Date>`${eb.ref("issue_alert_fires.last_fired_at")} + make_interval(mins => ${eb
                .selectFrom("issue_alert_rules")
                .select("issue_alert_rules.frequency")
                .whereRef("issue_alert_rules.id", "=", "excluded.rule_id")})`,
              "<=",
              eb.ref("excluded.last_fired_at"),
            ),
          ),
      )
      .returning("rule_id")
      .execute();
    return new Set(rows.map((row) => row.rule_id));
  }

  /** Drops counters older than the longest interval and firing state older than the longest frequency. */
  async prune(countersBefore: Date, firesBefore: Date, limit: number): Promise<number> {
    const db = this.db();
    const counters = await db
      .deleteFrom("issue_stats_minutely")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("issue_id", "bucket", "environment"),
          "in",
          selectFrom("issue_stats_minutely")
            .select(["issue_id", "bucket", "environment"])
            .where("bucket", "<", countersBefore)
            .limit(limit)
            .$asTuple("issue_id", "bucket", "environment"),
        ),
      )
      .executeTakeFirst();
    const fires = await db
      .deleteFrom("issue_alert_fires")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("rule_id", "issue_id"),
          "in",
          selectFrom("issue_alert_fires")
            .select(["rule_id", "issue_id"])
            .where("last_fired_at", "<", firesBefore)
            .limit(limit)
            .$asTuple("rule_id", "issue_id"),
        ),
      )
      .executeTakeFirst();
    return Math.max(Number(counters.numDeletedRows), Number(fires.numDeletedRows));
  }
}
