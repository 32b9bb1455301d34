import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, Options } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { OrganizationLinks } from "./links/links.js";
import { OrganizationRepository } from "./organizations/repository.js";
import { authProbe, currentUser, listAllProjects, listOrganizations } from "./discovery/routes.js";
import { createProjectKey, deleteProjectKey, getProjectKey, updateProjectKey } from "./keys/routes.js";
import { listMembers, listTeams } from "./members/routes.js";
import { ProjectAdminService } from "./projects/project-admin.js";
import { ContributedSettings } from "./settings/contributed.js";
import { createProject, deleteProject, updateProject } from "./projects/routes.js";
import {
  getOrganization,
  getProject,
  listProjectKeys,
  listProjects,
  updateOrganization,
} from "./organizations/routes.js";
import { OrganizationService } from "./organizations/service.js";
import {
  OrganizationLinksToken,
  OrganizationRepositoryToken,
  OrganizationServiceToken,
  ProjectAdminServiceToken,
  OrganizationSettingsContributorToken,
  OrganizationSettingsToken,
  ProjectSettingsContributorToken,
  ProjectSettingsToken,
  PublicBaseUrl,
} from "./tokens.js";

/** The project's own `PUT` fields (organizations/schemas.ts): no contributed setting may take one of these names. */
const PROJECT_FIELDS = ["name", "slug", "platform"] as const;
/** The organization's own fields of its `PUT`: no contributor may claim them. */
const ORGANIZATION_FIELDS = ["name", "slug"] as const;

/** Organizations, projects, users, members and teams: provisioning in-process, discovery over HTTP. */
export const organizationsPlugin = definePlugin({
  id: "organizations",
  register(container) {
    registerFactory(container, PublicBaseUrl, (c) => {
      const { publicUrl, basePath } = c.resolve(Options);
      return publicUrl ? new URL(`${publicUrl.replace(/\/+$/, "")}${basePath}`) : null;
    });
    registerFactory(
      container,
      OrganizationLinksToken,
      (c) => new OrganizationLinks(c.resolve(PublicBaseUrl), c.resolve(Options).permalinkTemplate ?? null),
    );
    registerFactory(container, OrganizationRepositoryToken, (c) => new OrganizationRepository(() => c.resolve(Db)));
    registerFactory(
      container,
      OrganizationServiceToken,
      (c) =>
        new OrganizationService(c.resolve(OrganizationRepositoryToken), c.resolve(Clock), c.resolve(PublicBaseUrl)),
    );
    registerFactory(
      container,
      ProjectAdminServiceToken,
      (c) =>
        new ProjectAdminService(
          c.resolve(OrganizationRepositoryToken),
          () => c.resolve(Db),
          c.resolve(EventBus),
          c.resolve(Clock),
        ),
    );
    registerFactory(
      container,
      ProjectSettingsToken,
      (c) =>
        new ContributedSettings(
          () =>
            c.isRegistered(ProjectSettingsContributorToken, true) ? c.resolveAll(ProjectSettingsContributorToken) : [],
          PROJECT_FIELDS,
          "Project",
        ),
    );
    registerFactory(
      container,
      OrganizationSettingsToken,
      (c) =>
        new ContributedSettings(
          () =>
            c.isRegistered(OrganizationSettingsContributorToken, true)
              ? c.resolveAll(OrganizationSettingsContributorToken)
              : [],
          ORGANIZATION_FIELDS,
          "Organization",
        ),
    );
  },
  endpoints: [
    authProbe,
    currentUser,
    listOrganizations,
    getOrganization,
    updateOrganization,
    listAllProjects,
    listProjects,
    createProject,
    getProject,
    updateProject,
    deleteProject,
    listProjectKeys,
    createProjectKey,
    getProjectKey,
    updateProjectKey,
    deleteProjectKey,
    listTeams,
    listMembers,
  ],
  api(container) {
    const service = () => container.resolve(OrganizationServiceToken);
    return {
      organizations: {
        create: (input: Parameters<OrganizationService["createOrganization"]>[0]) =>
          service().createOrganization(input),
        get: (ref: string | number) => service().getOrganization(ref),
        update: (ref: string | number, input: Parameters<OrganizationService["updateOrganization"]>[1]) =>
          service().updateOrganization(ref, input),
      },
      projects: {
        create: (input: Parameters<OrganizationService["createProject"]>[0]) => service().createProject(input),
        get: (organization: string | number, project: string | number) => service().getProject(organization, project),
        keys: (organization: string | number, project: string | number) =>
          service().listProjectKeys(organization, project),
      },
      users: {
        create: (input: Parameters<OrganizationService["createUser"]>[0]) => service().createUser(input),
        get: (ref: string | number) => service().getUser(ref),
      },
      members: {
        add: (input: Parameters<OrganizationService["addMember"]>[0]) => service().addMember(input),
      },
      teams: {
        create: (input: Parameters<OrganizationService["createTeam"]>[0]) => service().createTeam(input),
        addMember: (input: Parameters<OrganizationService["addTeamMember"]>[0]) => service().addTeamMember(input),
      },
    };
  },
});

export {
  OrganizationLinksToken,
  OrganizationServiceToken,
  OrganizationRepositoryToken,
  OrganizationSettingsContributorToken,
  ProjectSettingsContributorToken,
} from "./tokens.js";
export {
  defineOrganizationSettings,
  defineProjectSettings,
  storedProjectSettings,
  type ProjectSettingsStore,
  type OrganizationSettingsContributor,
  type ProjectSettingsContributor,
  type ProjectSettingsValues,
} from "./settings/contributed.js";
export { type LinkContext, type OrganizationLinks, requestBaseUrl } from "./links/links.js";
export type { OrganizationService } from "./organizations/service.js";
