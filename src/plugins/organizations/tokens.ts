import type { InjectionToken } from "tsyringe";
import type { Organization, Project } from "../../db/schema.js";
import type { OrganizationLinks } from "./links/links.js";
import type { OrganizationRepository } from "./organizations/repository.js";
import type { ProjectAdminService } from "./projects/project-admin.js";
import type {
  ContributedSettings,
  OrganizationSettingsContributor,
  ProjectSettingsContributor,
} from "./settings/contributed.js";
import type { OrganizationService } from "./organizations/service.js";

export const OrganizationServiceToken: InjectionToken<OrganizationService> = Symbol("faultline.OrganizationService");
export const OrganizationRepositoryToken: InjectionToken<OrganizationRepository> = Symbol(
  "faultline.OrganizationRepository",
);
/** `publicUrl` + `basePath` when the host configured a public URL, else null (use the request's). */
export const PublicBaseUrl: InjectionToken<URL | null> = Symbol("faultline.PublicBaseUrl");
/** Link contexts (base URL, permalink template, organization slug) for payloads. */
export const OrganizationLinksToken: InjectionToken<OrganizationLinks> = Symbol("faultline.OrganizationLinks");
/** Project and DSN-key administration over HTTP. */
export const ProjectAdminServiceToken: InjectionToken<ProjectAdminService> = Symbol("faultline.ProjectAdminService");
/**
 * Register a {@link ProjectSettingsContributor} here (several may be) to add fields to the
 * project detail and the project `PUT` (docs/plugins.md, "Project settings of your own").
 */
export const ProjectSettingsContributorToken: InjectionToken<ProjectSettingsContributor> = Symbol(
  "faultline.ProjectSettingsContributor",
);
/** The registered contributors, joined (the project routes use it). */
export const ProjectSettingsToken: InjectionToken<ContributedSettings<Project>> = Symbol("faultline.ProjectSettings");
/**
 * Register an {@link OrganizationSettingsContributor} here (several may be) to add fields to the
 * organization detail and the organization `PUT` (an organization-wide default, say).
 */
export const OrganizationSettingsContributorToken: InjectionToken<OrganizationSettingsContributor> = Symbol(
  "faultline.OrganizationSettingsContributor",
);
/** The registered organization contributors, joined (the organization routes use it). */
export const OrganizationSettingsToken: InjectionToken<ContributedSettings<Organization>> = Symbol(
  "faultline.OrganizationSettings",
);
