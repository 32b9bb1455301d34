import type { ColumnType, Generated, Insertable, Selectable } from "kysely";

/** A timestamp column: read as a Date, written as a Date (always from the Clock, ms precision). */
export type Timestamp = ColumnType<Date, Date, Date>;

/** A JSON column: written as a JSON string, read back parsed. */
export type Json<T> = ColumnType<T, string, string>;

/** A JSON column with a database default: optional on insert. */
export type JsonWithDefault<T> = ColumnType<T, string | undefined, string>;

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
export type Int8 = ColumnType<string | number, number | bigint, number | bigint>;

export type Int8WithDefault = ColumnType<string | number, number | undefined, number | bigint>;

export type Int8Id = ColumnType<string | number, number | undefined, never>;

export type DeliveryStatus = "pending" | "delivered" | "failed" | "cancelled";

export interface DeliveriesTable {
  id: string;
  organization_id: number;
  /** `service_hook`, `app`, or a type another plugin registered (`email`, `chat`). */
  destination_type: string;
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
  destination_type: string;
  destination_id: string;
  last_success_at: Date | null;
  first_failure_at: Date | null;
}

/**
 * The Kysely view of the tables, all inside the configured schema: the core's own here; each
 * plugin adds its tables to this interface from its `tables.ts` (declaration merging), so one
 * `Kysely<Database>` types them all. A plugin reads another's tables only through that plugin's
 * exported services.
 */
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
  deliveries: DeliveriesTable;
  delivery_destinations: DeliveryDestinationsTable;
  delivery_attempts: DeliveryAttemptsTable;
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

export type Delivery = Selectable<DeliveriesTable>;

export type DeliveryAttempt = Selectable<DeliveryAttemptsTable>;
