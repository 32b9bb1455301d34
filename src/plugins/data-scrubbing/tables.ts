// The data-scrubbing plugin's tables: their Kysely types, merged into the core's `Database` (the
// migration creating it is in migrations.ts).

/** A project's data-scrubbing settings (0001_project_data_scrubbing); a project without a row has the defaults. */
export interface ProjectDataScrubbingTable {
  project_id: number;
  data_scrubber: boolean;
  data_scrubber_defaults: boolean;
  scrub_ip_addresses: boolean;
  sensitive_fields: string[];
  safe_fields: string[];
}

/** An organization's default (0002_organization_data_scrubbing); an organization without a row forces nothing. */
export interface OrganizationDataScrubbingTable extends Omit<ProjectDataScrubbingTable, "project_id"> {
  organization_id: number;
}

declare module "../../db/schema.js" {
  /** The data-scrubbing plugin's tables. */
  interface Database {
    project_data_scrubbing: ProjectDataScrubbingTable;
    organization_data_scrubbing: OrganizationDataScrubbingTable;
  }
}
