import type { ColumnType, Generated, Insertable, Selectable } from "kysely";

/** A timestamp column: read as a Date, written as a Date (always from the Clock, ms precision). */
type Timestamp = ColumnType<Date, Date, Date>;
/** A JSON column: written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>;
/** A JSON column with a database default: optional on insert. */
type JsonWithDefault<T> = ColumnType<T, string | undefined, string>;

export type OrganizationPlan = "free" | "team" | "business" | "enterprise";
export type MemberRole = "owner" | "manager" | "admin" | "member" | "billing";
export type TokenKind = "user" | "organization" | "installation" | "scim";

export interface OrganizationsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  plan: OrganizationPlan;
  saml_configured: boolean;
  scim_enabled: boolean;
  date_created: Timestamp;
}

export interface ProjectsTable {
  id: Generated<number>;
  organization_id: number;
  slug: string;
  name: string;
  platform: string | null;
  features: string[];
  /** Next number handed out for a short id (`WEB-1`, `WEB-2`, …). */
  next_short_id: Generated<number>;
  date_created: Timestamp;
  /** Days events of this project are kept (0009_retention); null = the `retention.days` option. */
  retention_days: Generated<number | null>;
}

export interface UsersTable {
  id: Generated<number>;
  username: string;
  email: string | null;
  name: string;
  date_created: Timestamp;
}

export interface OrganizationMembersTable {
  id: Generated<number>;
  organization_id: number;
  user_id: number;
  role: MemberRole;
  /** False while deprovisioned (SCIM `active: false`): the member stays readable but has no access. */
  active: boolean;
  date_created: Timestamp;
}

export interface TeamsTable {
  id: Generated<number>;
  organization_id: number;
  slug: string;
  name: string;
  date_created: Timestamp;
}

export interface TeamMembersTable {
  organization_id: number;
  team_id: number;
  member_id: number;
  date_created: Timestamp;
}

export interface ApiTokensTable {
  id: Generated<number>;
  kind: TokenKind;
  /** Set for user tokens. */
  user_id: number | null;
  /** Set for organization, installation and SCIM tokens. */
  organization_id: number | null;
  installation_id: number | null;
  name: string | null;
  /** SHA-256 (hex) of the whole token: the plaintext is never stored. */
  token_hash: string;
  token_prefix: string;
  token_last_characters: string;
  scopes: string[];
  expires_at: Date | null;
  /** SHA-256 of the OAuth refresh token of an installation token. */
  refresh_token_hash: Generated<string | null>;
  date_created: Timestamp;
}

export interface ProjectKeysTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  name: string;
  public_key: string;
  is_active: boolean;
  /** Events accepted per `rate_limit_window` seconds with this key (the name predates windows); null = unlimited. */
  rate_limit_per_minute: Generated<number | null>;
  /** The rate limit's window in seconds (0012_key_rate_limit_window); null = 60. */
  rate_limit_window: Generated<number | null>;
  date_created: Timestamp;
}

export interface AppsTable {
  id: Generated<number>;
  uuid: string;
  /** The owning organization. */
  organization_id: number;
  slug: string;
  name: string;
  is_internal: boolean;
  webhook_url: string | null;
  events: string[];
  scopes: string[];
  schema: Json<Record<string, unknown> | null>;
  client_id: string;
  /** Kept in plaintext on purpose: it is the HMAC key that signs this app's webhooks. */
  client_secret: string;
  webhook_status: Generated<"active" | "disabled">;
  /** Also send Sentry's `Sentry-Hook-*` header names (0014_sentry_hook_headers). */
  sentry_hook_headers: Generated<boolean>;
  date_created: Timestamp;
}

export interface AppInstallationsTable {
  id: Generated<number>;
  uuid: string;
  app_id: number;
  organization_id: number;
  status: "installed";
  /** One-time grant code for the OAuth authorization exchange; null once used. */
  code: string | null;
  /**
   * The app scopes this organization consented to (0007_installation_consent), always a subset of
   * the app's scopes: what the installation's tokens carry. Required on insert, so that every
   * install decides it.
   */
  consented_scopes: string[];
  date_created: Timestamp;
}

/** A bigint column: `pg` reads int8 as a string, PGlite as a number; write numbers. */
type Int8 = ColumnType<string | number, number | bigint, number | bigint>;
type Int8WithDefault = ColumnType<string | number, number | undefined, number | bigint>;
type Int8Id = ColumnType<string | number, number | undefined, never>;

export type IssueStatus = "unresolved" | "resolved" | "ignored";

export interface ReleasesTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  version: string;
  date_created: Timestamp;
  /** Time of the release's first and last event in this project (null until one arrives). */
  first_event: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_event: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Issues whose first event came from this release. */
  new_groups: Generated<number>;
}

export interface IssuesTable {
  id: Int8Id;
  organization_id: number;
  project_id: number;
  short_number: number;
  type: "error" | "default";
  title: string;
  culprit: string;
  message: string;
  level: string;
  platform: string | null;
  metadata: Json<Record<string, unknown>>;
  status: IssueStatus;
  substatus: string | null;
  status_details: JsonWithDefault<Record<string, unknown>>;
  /** How it was resolved, for regression checks: `{type, version?, commit?, releaseAtResolve?}`. */
  resolution: JsonWithDefault<Record<string, unknown> | null>;
  /** Conditions of an ignore: `{until?, count?, window?, userCount?, userWindow?, baseCount, baseUsers, since}`. */
  snooze: JsonWithDefault<Record<string, unknown> | null>;
  /** Copy of snooze.until, indexed for the expiry timer. */
  ignore_until: Date | null;
  first_seen: Timestamp;
  last_seen: Timestamp;
  times_seen: Int8WithDefault;
  user_count: Generated<number>;
  first_release: string | null;
  last_release: string | null;
  assignee_user_id: number | null;
  assignee_team_id: number | null;
  is_public: Generated<boolean>;
  share_id: string | null;
  num_comments: Generated<number>;
  deleted_at: Date | null;
}

export interface IssueHashesTable {
  project_id: number;
  hash: string;
  issue_id: Int8;
}

export interface EventsTable {
  id: Int8Id;
  organization_id: number;
  project_id: number;
  issue_id: Int8;
  event_id: string;
  timestamp: Timestamp;
  received: Timestamp;
  level: string;
  platform: string | null;
  environment: string | null;
  release: string | null;
  dist: string | null;
  type: "error" | "default";
  title: string;
  culprit: string;
  message: string;
  location: string | null;
  user_key: string | null;
  tags: Json<Array<[string, string]>>;
  hashes: string[];
  size: number;
  payload: Json<Record<string, unknown>>;
}

export interface IssueUsersTable {
  issue_id: Int8;
  user_key: string;
  first_seen: Timestamp;
}

export interface IssueFacetTables {
  issue_environments: { issue_id: Int8; environment: string };
  issue_releases: { issue_id: Int8; release: string };
  issue_tags: { issue_id: Int8; key: string; value: string };
  issue_stats_hourly: { issue_id: Int8; bucket: Timestamp; count: number };
  issue_stats_daily: { issue_id: Int8; bucket: Timestamp; count: number };
}

export interface IssueActivityTable {
  id: Int8Id;
  organization_id: number;
  issue_id: Int8;
  type: string;
  data: JsonWithDefault<Record<string, unknown>>;
  user_id: number | null;
  date_created: Timestamp;
}

export interface IssueUserStateTable {
  issue_id: Int8;
  user_id: number;
  is_bookmarked: Generated<boolean>;
  is_subscribed: Generated<boolean>;
  has_seen: Generated<boolean>;
}

export interface IssueCommentsTable {
  id: Int8Id;
  organization_id: number;
  issue_id: Int8;
  user_id: number | null;
  text: string;
  date_created: Timestamp;
  date_updated: Timestamp;
}

export interface ExternalIssuesTable {
  id: Generated<number>;
  organization_id: number;
  installation_id: number;
  issue_id: Int8;
  web_url: string;
  identifier: string;
  date_created: Timestamp;
}

export interface ServiceHooksTable {
  /** 32-hex GUID. */
  id: string;
  /** Insertion order: the keyset tie-breaker (the GUID cannot be one). */
  seq: Generated<number>;
  organization_id: number;
  project_id: number;
  url: string;
  events: string[];
  secret: string;
  status: Generated<"active" | "disabled">;
  date_created: Timestamp;
}

export type DeliveryStatus = "pending" | "delivered" | "failed" | "cancelled";

export interface DeliveriesTable {
  id: string;
  organization_id: number;
  destination_type: "service_hook" | "app";
  destination_id: string;
  installation_uuid: string | null;
  url: string;
  secret: string;
  event_type: string;
  resource: string;
  /** The exact JSON bytes sent on every attempt. */
  body: string;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_attempt_at: Date | null;
  last_response_code: number | null;
  last_error: string | null;
  date_created: Timestamp;
  date_finished: Date | null;
  /** Insertion order (0005_apps): the keyset tie-breaker of the deliveries listing. */
  seq: Int8Id;
  /** An app delivery that also carries `Sentry-Hook-*` headers (0014_sentry_hook_headers): its app's choice when queued. */
  sentry_hook_headers: Generated<boolean>;
  /** How long the last recorded attempt took (0016_delivery_attempts); null before the first. */
  last_duration_ms: Generated<number | null>;
}

/** One recorded attempt of a delivery (0016_delivery_attempts): the delivery log's history. */
export interface DeliveryAttemptsTable {
  delivery_id: string;
  /** The delivery's attempt number (1 for the first send; a redelivery goes on counting). */
  attempt: number;
  url: string;
  /** The HTTP status; null when nothing answered (connection refused, timeout, refused address). */
  response_code: number | null;
  error: string | null;
  duration_ms: number;
  date_created: Timestamp;
}

export interface DeliveryDestinationsTable {
  destination_type: "service_hook" | "app";
  destination_id: string;
  last_success_at: Date | null;
  first_failure_at: Date | null;
}

export interface AppRequestLogTable {
  id: Int8Id;
  app_id: number;
  organization_id: number;
  delivery_id: string;
  attempt: number;
  event_type: string;
  webhook_url: string;
  response_code: number;
  is_error: boolean;
  request_body: string;
  response_body: string;
  date_created: Timestamp;
}

/** Accepted events waiting for the digest stage (0008_ingest_queue); `event` is the normalised event as JSON. */
export interface IngestQueueTable {
  id: Generated<string>;
  project_id: number;
  organization_id: number;
  platform: string | null;
  event: string;
  attempts: Generated<number>;
}

/** Events per project, hour and outcome (0011_ingest_outcomes): Sentry's "outcomes", summed. */
export interface IngestOutcomesTable {
  organization_id: number;
  project_id: number;
  hour: Timestamp;
  category: string;
  outcome: string;
  reason: string;
  /** bigint: read back as a string by pg. */
  quantity: string | number;
}

/** Event ids stored per project (0009_retention): what ingest deduplicates on, kept as long as the event. */
export interface EventIdsTable {
  project_id: number;
  event_id: string;
  received: Timestamp;
}

/** The Kysely view of every table Faultline's core owns (all inside the configured schema). */
/**
 * Events taken per DSN key and rate-limit window (0010_rate_limits), shared by every instance on
 * the schema. `used` counts what instances leased, which may pass the limit (see rate-limit.ts).
 */
export interface RateLimitWindowsTable {
  key_id: number;
  window_start: Timestamp;
  used: number;
}

export interface Database {
  organizations: OrganizationsTable;
  projects: ProjectsTable;
  users: UsersTable;
  organization_members: OrganizationMembersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  api_tokens: ApiTokensTable;
  project_keys: ProjectKeysTable;
  apps: AppsTable;
  app_installations: AppInstallationsTable;
  releases: ReleasesTable;
  issues: IssuesTable;
  issue_hashes: IssueHashesTable;
  events: EventsTable;
  issue_users: IssueUsersTable;
  issue_environments: IssueFacetTables["issue_environments"];
  issue_releases: IssueFacetTables["issue_releases"];
  issue_tags: IssueFacetTables["issue_tags"];
  issue_stats_hourly: IssueFacetTables["issue_stats_hourly"];
  issue_stats_daily: IssueFacetTables["issue_stats_daily"];
  issue_activity: IssueActivityTable;
  issue_user_state: IssueUserStateTable;
  issue_comments: IssueCommentsTable;
  external_issues: ExternalIssuesTable;
  service_hooks: ServiceHooksTable;
  deliveries: DeliveriesTable;
  delivery_destinations: DeliveryDestinationsTable;
  delivery_attempts: DeliveryAttemptsTable;
  app_request_log: AppRequestLogTable;
  issue_stats_minutely: IssueStatsMinutelyTable;
  issue_alert_rules: IssueAlertRulesTable;
  issue_alert_fires: IssueAlertFiresTable;
  metric_alert_rules: MetricAlertRulesTable;
  metric_alert_incidents: MetricAlertIncidentsTable;
  metric_alert_incident_activity: MetricAlertIncidentActivityTable;
  metric_alert_sequences: MetricAlertSequencesTable;
  ingest_queue: IngestQueueTable;
  ingest_outcomes: IngestOutcomesTable;
  event_ids: EventIdsTable;
  rate_limit_windows: RateLimitWindowsTable;
}

/**
 * Columns 0003_scim adds to `organization_members`. SCIM state lives on the membership, not the
 * user account: one account can be a member of several organizations, each with its own identity
 * provider. Kept apart from OrganizationMembersTable so that code inserting members without SCIM
 * (and `OrganizationMember`) is unchanged; the SCIM plugin queries through {@link ScimDatabase}.
 */
export interface ScimMemberColumns {
  /** `userName` as the identity provider sent it (unique per organization, case-insensitive); null until provisioned. */
  scim_user_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** `externalId`: the identity provider's id for this member. */
  scim_external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The other SCIM User attributes as sent (name, emails, the enterprise extension, …). */
  scim_attributes: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** Last change through SCIM (`meta.lastModified`); null: unchanged since it was added. */
  date_updated: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Columns 0003_scim adds to `teams` (kept apart for the same reason). */
export interface ScimTeamColumns {
  /** SCIM Group `externalId`. */
  scim_external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Last change through SCIM (`meta.lastModified`); null: unchanged since it was created. */
  date_updated: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** The database as the SCIM plugin sees it: members and teams with their SCIM columns. */
export interface ScimDatabase extends Omit<Database, "organization_members" | "teams"> {
  organization_members: OrganizationMembersTable & ScimMemberColumns;
  teams: TeamsTable & ScimTeamColumns;
}

export type Organization = Selectable<OrganizationsTable>;
export type Project = Selectable<ProjectsTable>;
export type User = Selectable<UsersTable>;
export type OrganizationMember = Selectable<OrganizationMembersTable>;
export type Team = Selectable<TeamsTable>;
export type ApiToken = Selectable<ApiTokensTable>;
export type ProjectKey = Selectable<ProjectKeysTable>;
export type App = Selectable<AppsTable>;
export type AppInstallation = Selectable<AppInstallationsTable>;
export type NewOrganization = Insertable<OrganizationsTable>;
export type Issue = Selectable<IssuesTable>;
export type StoredEvent = Selectable<EventsTable>;
export type IssueActivity = Selectable<IssueActivityTable>;
export type IssueComment = Selectable<IssueCommentsTable>;
export type ServiceHook = Selectable<ServiceHooksTable>;
export type Delivery = Selectable<DeliveriesTable>;
export type DeliveryAttempt = Selectable<DeliveryAttemptsTable>;

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
  triggers: Json<Array<{ label: MetricTriggerLabel; alertThreshold: number }>>;
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
