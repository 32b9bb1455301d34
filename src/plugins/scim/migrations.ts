import type { SchemaMigration } from "../../db/migrations/types.js";

/**
 * The SCIM plugin's shares of Faultline's original migrations, under their original names in
 * the core's migration table (`coreLedgerMigrations`, docs/plugins.md): installs that ran them
 * find them applied.
 */
export const scimMigrations: readonly SchemaMigration[] = [
  /**
   * SCIM provisioning state. It lives on the membership, not the user account: one account can be
   * a member of several organizations, each with its own identity provider and its own userName,
   * externalId and attributes for it.
   */
  {
    name: "0003_scim",
    statements: (s) => [
      `ALTER TABLE ${s}.organization_members ADD COLUMN scim_user_name text`,
      `ALTER TABLE ${s}.organization_members ADD COLUMN scim_external_id text`,
      `ALTER TABLE ${s}.organization_members ADD COLUMN scim_attributes jsonb`,
      `ALTER TABLE ${s}.organization_members ADD COLUMN date_updated timestamptz`,
      `CREATE UNIQUE INDEX organization_members_scim_user_name ON ${s}.organization_members (organization_id, lower(scim_user_name)) WHERE scim_user_name IS NOT NULL`,
      `CREATE UNIQUE INDEX organization_members_scim_external_id ON ${s}.organization_members (organization_id, scim_external_id) WHERE scim_external_id IS NOT NULL`,
      `ALTER TABLE ${s}.teams ADD COLUMN scim_external_id text`,
      `ALTER TABLE ${s}.teams ADD COLUMN date_updated timestamptz`,
      `CREATE UNIQUE INDEX teams_scim_external_id ON ${s}.teams (organization_id, scim_external_id) WHERE scim_external_id IS NOT NULL`,
      `CREATE INDEX teams_name_lower ON ${s}.teams (organization_id, lower(name))`,
    ],
  },
];
