import type { ColumnType, Generated, Insertable, Selectable } from "kysely";

/** A timestamp column: read as a Date, written as a Date (always from the Clock, ms precision). */
type Timestamp = ColumnType<Date, Date, Date>;
/** A JSON column: written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>;

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
  date_created: Timestamp;
}

export interface ProjectKeysTable {
  id: Generated<number>;
  organization_id: number;
  project_id: number;
  name: string;
  public_key: string;
  is_active: boolean;
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
  date_created: Timestamp;
}

/** The Kysely view of every table Faultline's core owns (all inside the configured schema). */
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
