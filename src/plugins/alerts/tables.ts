// The alerts plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { ColumnType, Generated, Selectable } from "kysely";
import type { Action as IssueRuleAction } from "./issue-rules/schemas.js";
import type { MetricAction } from "./metric-rules/schemas.js";
import type { Int8, Json, Timestamp } from "../../db/schema.js";

/** Events per issue, environment ('' for none) and minute of event time (0006_alerts, kept one day). */
export interface IssueStatsMinutelyTable {
  issue_id: Int8;
  environment: string;
  bucket: Timestamp;
  count: number;
}

export type AlertRuleStatus = "active" | "disabled";

/** Issue alert rules (0006_alerts); conditions and filters are stored as validated on input. */
export interface IssueAlertRulesTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  name: string;
  action_match: "all" | "any";
  conditions: Json<Array<Record<string, unknown>>>;
  filters: Json<Array<Record<string, unknown>>>;
  /** Minutes between two firings for one issue. */
  frequency: number;
  environment: string | null;
  status: AlertRuleStatus;
  date_created: Timestamp;
  /** The rule's actions (alerts migration 0001_rule_actions); null: none given, it fires the service hooks and app webhooks. */
  actions: ColumnType<IssueRuleAction[] | null, string | null | undefined, string | null>;
}

/** When a rule last fired for an issue: the frequency throttle. */
export interface IssueAlertFiresTable {
  rule_id: number;
  issue_id: Int8;
  last_fired_at: Timestamp;
}

export type MetricTriggerLabel = "critical" | "warning";

export interface MetricAlertRulesTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  project_ids: number[];
  query: string;
  aggregate: "count()" | "count_unique(user)";
  /** Minutes. */
  time_window: number;
  threshold_type: "above" | "below";
  /** `actions` is absent on triggers saved before actions existed. */
  triggers: Json<Array<{ label: MetricTriggerLabel; alertThreshold: number; actions?: MetricAction[] }>>;
  resolve_threshold: number | null;
  status: AlertRuleStatus;
  date_created: Timestamp;
  /** The worker claims a rule when this has passed, and moves it to the next minute. */
  next_evaluation_at: Timestamp;
}

export interface MetricAlertIncidentsTable {
  id: Generated<number>;
  organization_id: number;
  rule_id: number;
  /** Per-organization number (Sentry's incident identifier). */
  identifier: number;
  status: MetricTriggerLabel | "resolved";
  date_started: Timestamp;
  date_detected: Timestamp;
  date_closed: Date | null;
}

export interface MetricAlertIncidentActivityTable {
  id: Generated<number>;
  incident_id: number;
  type: "open" | MetricTriggerLabel | "resolved";
  /** The aggregate's value at that evaluation. */
  value: number;
  date_created: Timestamp;
}

export interface MetricAlertSequencesTable {
  organization_id: number;
  last_identifier: number;
}

export type IssueAlertRule = Selectable<IssueAlertRulesTable>;

export type MetricAlertRule = Selectable<MetricAlertRulesTable>;

export type MetricAlertIncident = Selectable<MetricAlertIncidentsTable>;

declare module "../../db/schema.js" {
  /** The alerts plugin's tables. */
  interface Database {
    issue_stats_minutely: IssueStatsMinutelyTable;
    issue_alert_rules: IssueAlertRulesTable;
    issue_alert_fires: IssueAlertFiresTable;
    metric_alert_rules: MetricAlertRulesTable;
    metric_alert_incidents: MetricAlertIncidentsTable;
    metric_alert_incident_activity: MetricAlertIncidentActivityTable;
    metric_alert_sequences: MetricAlertSequencesTable;
  }
}
