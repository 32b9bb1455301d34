// The scim plugin's tables: their Kysely types, merged into the core's `Database` (the
// migrations creating them are in migrations.ts).
import type { ColumnType } from "kysely";
import type { Database, OrganizationMembersTable, TeamsTable } from "../../db/schema.js";

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
