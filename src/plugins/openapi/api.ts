// The types of the typed in-process API (`faultline.api.<area>.<operation>`), one entry per
// first-party endpoint. Type-only imports: nothing here runs, and no plugin's code is loaded.
// At run time `buildFaultline` adds every route of the instance (host plugins' too) to `api`.
import type { ApiOf } from "../../faultline.js";
import type { EndpointApi } from "../../http/in-process.js";
import type { alertsPlugin } from "../alerts/index.js";
import type { apiTokensPlugin } from "../api-tokens/index.js";
import type { deliveriesPlugin } from "../deliveries/index.js";
import type { externalIssuesPlugin } from "../external-issues/index.js";
import type { ingestPlugin } from "../ingest/index.js";
import type { installationsPlugin } from "../installations/index.js";
import type { issuesPlugin } from "../issues/index.js";
import type { organizationsPlugin } from "../organizations/index.js";
import type { releasesPlugin } from "../releases/index.js";
import type { scimPlugin } from "../scim/index.js";
import type { serviceHooksPlugin } from "../service-hooks/index.js";
import type { webhooksPlugin } from "../webhooks/index.js";
import type { getOpenApi } from "./routes.js";
import type { getOutcomeStats } from "../ingest/outcomes/routes.js";
import type { createIssueRule, listIssueRules, getIssueRule, updateIssueRule, deleteIssueRule } from "../alerts/issue-rules/routes.js";
import type { createMetricRule, listMetricRules, getMetricRule, updateMetricRule, deleteMetricRule, listIncidents } from "../alerts/metric-rules/routes.js";
import type { listTokens, createToken, deleteToken } from "../api-tokens/routes.js";
import type { getDelivery, listDeliveries, redeliver } from "../deliveries/routes.js";
import type { listLinks, createLink, deleteLink } from "../external-issues/routes.js";
import type { postEnvelope, postStore, preflightEnvelope, preflightStore } from "../ingest/routes.js";
import type { createApp, listApps, getApp, updateApp, deleteApp, rotateAppSecret, listAppRequests } from "../installations/app-routes.js";
import type { listInstallations, installApp, getInstallation, approveInstallationScopes, uninstallApp, authorizeInstallationToken, listComponents } from "../installations/routes.js";
import type { listComments, createComment, updateComment, deleteComment } from "../issues/routes/comments.js";
import type { getEvent, getEventJson, listIssueHashes, listIssueExternalIssues } from "../issues/routes/events.js";
import type { getIssue, updateIssue, deleteIssue } from "../issues/routes/issue.js";
import type { listIssues, bulkUpdateIssues, bulkDeleteIssues, listProjectIssues, bulkUpdateProjectIssues, bulkDeleteProjectIssues } from "../issues/routes/list.js";
import type { listIssueEvents, getIssueEvent } from "../issues/routes/issue-events.js";
import type { listIssueTags, getIssueTag, listIssueTagValues } from "../issues/routes/tags.js";
import type { resolveShortId, resolveEventId } from "../issues/routes/lookups.js";
import type {
  legacyGetIssue, legacyUpdateIssue, legacyDeleteIssue, legacyListIssueEvents, legacyGetIssueEvent, legacyListIssueTags, legacyGetIssueTag,
  legacyListIssueTagValues, legacyListIssueHashes,
} from "../issues/routes/legacy.js";
import type { getOrganization, listProjects, getProject, listProjectKeys } from "../organizations/routes.js";
import type { authProbe, currentUser, listOrganizations, listAllProjects } from "../organizations/discovery-routes.js";
import type { createProject, updateProject, deleteProject } from "../organizations/project-routes.js";
import type { createProjectKey, getProjectKey, updateProjectKey, deleteProjectKey } from "../organizations/key-routes.js";
import type { listTeams, listMembers } from "../organizations/member-routes.js";
import type { getServiceProviderConfig, listResourceTypes, getResourceType, listSchemas, getSchema } from "../scim/routes-discovery.js";
import type { listScimGroups, createScimGroup, getScimGroup, replaceScimGroup, patchScimGroup, deleteScimGroup } from "../scim/routes-groups.js";
import type { listScimUsers, createScimUser, getScimUser, replaceScimUser, patchScimUser, deleteScimUser } from "../scim/routes-users.js";
import type { chunkUploadOptions, uploadChunks, assembleArtifactBundle } from "../releases/artifacts/routes.js";
import type { listReleases, createRelease, getRelease, updateRelease, deleteRelease, listProjectReleases, listDeploys, createDeploy } from "../releases/routes.js";
import type { createHook, listHooks, getHook, updateHook, deleteHook } from "../service-hooks/routes.js";

/** Every first-party endpoint by operation id: the source of the types of `faultline.api.<area>.<operation>`. */
export interface FirstPartyEndpoints {
  "openapi.get": typeof getOpenApi;
  "apiTokens.create": typeof createToken;
  "apiTokens.delete": typeof deleteToken;
  "apiTokens.list": typeof listTokens;
  "apps.create": typeof createApp;
  "apps.delete": typeof deleteApp;
  "apps.get": typeof getApp;
  "apps.list": typeof listApps;
  "apps.requests": typeof listAppRequests;
  "apps.rotateSecret": typeof rotateAppSecret;
  "apps.update": typeof updateApp;
  "artifacts.assembleBundle": typeof assembleArtifactBundle;
  "artifacts.chunkUploadOptions": typeof chunkUploadOptions;
  "artifacts.uploadChunks": typeof uploadChunks;
  "auth.index": typeof authProbe;
  "auth.user": typeof currentUser;
  "comments.create": typeof createComment;
  "comments.delete": typeof deleteComment;
  "comments.list": typeof listComments;
  "comments.update": typeof updateComment;
  "deliveries.get": typeof getDelivery;
  "deliveries.list": typeof listDeliveries;
  "deliveries.redeliver": typeof redeliver;
  "events.get": typeof getEvent;
  "events.json": typeof getEventJson;
  "events.resolveEventId": typeof resolveEventId;
  "externalIssues.create": typeof createLink;
  "externalIssues.delete": typeof deleteLink;
  "externalIssues.list": typeof listLinks;
  "ingest.envelope": typeof postEnvelope;
  "ingest.envelope.preflight": typeof preflightEnvelope;
  "ingest.store": typeof postStore;
  "ingest.store.preflight": typeof preflightStore;
  "installations.approveScopes": typeof approveInstallationScopes;
  "installations.authorize": typeof authorizeInstallationToken;
  "installations.components": typeof listComponents;
  "installations.get": typeof getInstallation;
  "installations.install": typeof installApp;
  "installations.list": typeof listInstallations;
  "installations.uninstall": typeof uninstallApp;
  "issueAlertRules.create": typeof createIssueRule;
  "issueAlertRules.delete": typeof deleteIssueRule;
  "issueAlertRules.get": typeof getIssueRule;
  "issueAlertRules.list": typeof listIssueRules;
  "issueAlertRules.update": typeof updateIssueRule;
  "issues.bulkDelete": typeof bulkDeleteIssues;
  "issues.bulkUpdate": typeof bulkUpdateIssues;
  "issues.delete": typeof deleteIssue;
  "issues.event": typeof getIssueEvent;
  "issues.events": typeof listIssueEvents;
  "issues.externalIssues": typeof listIssueExternalIssues;
  "issues.get": typeof getIssue;
  "issues.hashes": typeof listIssueHashes;
  "issues.legacyDelete": typeof legacyDeleteIssue;
  "issues.legacyEvent": typeof legacyGetIssueEvent;
  "issues.legacyEvents": typeof legacyListIssueEvents;
  "issues.legacyGet": typeof legacyGetIssue;
  "issues.legacyHashes": typeof legacyListIssueHashes;
  "issues.legacyTag": typeof legacyGetIssueTag;
  "issues.legacyTagValues": typeof legacyListIssueTagValues;
  "issues.legacyTags": typeof legacyListIssueTags;
  "issues.legacyUpdate": typeof legacyUpdateIssue;
  "issues.list": typeof listIssues;
  "issues.resolveShortId": typeof resolveShortId;
  "issues.tag": typeof getIssueTag;
  "issues.tagValues": typeof listIssueTagValues;
  "issues.tags": typeof listIssueTags;
  "issues.update": typeof updateIssue;
  "metricAlertRules.create": typeof createMetricRule;
  "metricAlertRules.delete": typeof deleteMetricRule;
  "metricAlertRules.get": typeof getMetricRule;
  "metricAlertRules.incidents": typeof listIncidents;
  "metricAlertRules.list": typeof listMetricRules;
  "metricAlertRules.update": typeof updateMetricRule;
  "members.list": typeof listMembers;
  "organizations.get": typeof getOrganization;
  "organizations.list": typeof listOrganizations;
  "organizations.stats": typeof getOutcomeStats;
  "projectKeys.create": typeof createProjectKey;
  "projectKeys.delete": typeof deleteProjectKey;
  "projectKeys.get": typeof getProjectKey;
  "projectKeys.update": typeof updateProjectKey;
  "projects.bulkDeleteIssues": typeof bulkDeleteProjectIssues;
  "projects.bulkUpdateIssues": typeof bulkUpdateProjectIssues;
  "projects.createForTeam": typeof createProject;
  "projects.delete": typeof deleteProject;
  "projects.get": typeof getProject;
  "projects.issues": typeof listProjectIssues;
  "projects.keys": typeof listProjectKeys;
  "projects.list": typeof listProjects;
  "releases.create": typeof createRelease;
  "releases.delete": typeof deleteRelease;
  "releases.deploys.create": typeof createDeploy;
  "releases.deploys.list": typeof listDeploys;
  "releases.get": typeof getRelease;
  "releases.list": typeof listReleases;
  "releases.listForProject": typeof listProjectReleases;
  "releases.update": typeof updateRelease;
  "projects.listAll": typeof listAllProjects;
  "projects.update": typeof updateProject;
  "scim.groups.create": typeof createScimGroup;
  "scim.groups.delete": typeof deleteScimGroup;
  "scim.groups.get": typeof getScimGroup;
  "scim.groups.list": typeof listScimGroups;
  "scim.groups.patch": typeof patchScimGroup;
  "scim.groups.replace": typeof replaceScimGroup;
  "scim.resourceTypes.get": typeof getResourceType;
  "scim.resourceTypes.list": typeof listResourceTypes;
  "scim.schemas.get": typeof getSchema;
  "scim.schemas.list": typeof listSchemas;
  "scim.serviceProviderConfig": typeof getServiceProviderConfig;
  "scim.users.create": typeof createScimUser;
  "scim.users.delete": typeof deleteScimUser;
  "scim.users.get": typeof getScimUser;
  "scim.users.list": typeof listScimUsers;
  "scim.users.patch": typeof patchScimUser;
  "scim.users.replace": typeof replaceScimUser;
  "serviceHooks.create": typeof createHook;
  "serviceHooks.delete": typeof deleteHook;
  "serviceHooks.get": typeof getHook;
  "serviceHooks.list": typeof listHooks;
  "serviceHooks.update": typeof updateHook;
  "teams.list": typeof listTeams;
}

/** The same ids at run time (a test checks every first-party route is listed). */
export const TYPED_OPERATIONS = [
  "openapi.get",
  "apiTokens.create", "apiTokens.delete", "apiTokens.list", "apps.create", "apps.delete", "apps.get", "apps.list",
  "apps.requests", "apps.rotateSecret", "apps.update", "artifacts.assembleBundle", "artifacts.chunkUploadOptions", "artifacts.uploadChunks", "comments.create", "comments.delete", "comments.list",
  "comments.update", "deliveries.get", "deliveries.list", "deliveries.redeliver", "events.get", "events.json", "events.resolveEventId", "externalIssues.create",
  "externalIssues.delete", "externalIssues.list", "ingest.envelope", "ingest.envelope.preflight", "ingest.store",
  "ingest.store.preflight", "installations.approveScopes", "installations.authorize", "installations.components",
  "installations.get", "installations.install", "installations.list", "installations.uninstall", "issueAlertRules.create", "issueAlertRules.delete",
  "issueAlertRules.get", "issueAlertRules.list", "issueAlertRules.update", "issues.bulkDelete", "issues.bulkUpdate",
  "issues.delete", "issues.event", "issues.events", "issues.externalIssues", "issues.get", "issues.hashes",
  "issues.legacyDelete", "issues.legacyEvent", "issues.legacyEvents", "issues.legacyGet", "issues.legacyHashes", "issues.legacyTag",
  "issues.legacyTagValues", "issues.legacyTags", "issues.legacyUpdate", "issues.list", "issues.resolveShortId", "issues.tag",
  "issues.tagValues", "issues.tags", "issues.update",
  "metricAlertRules.create", "metricAlertRules.delete", "metricAlertRules.get", "metricAlertRules.incidents",
  "metricAlertRules.list", "metricAlertRules.update", "organizations.get", "organizations.stats", "projects.get", "projects.issues",
  "projects.keys", "projects.list", "releases.create", "releases.delete", "releases.deploys.create", "releases.deploys.list", "releases.get",
  "releases.list", "releases.listForProject", "releases.update", "scim.groups.create", "scim.groups.delete", "scim.groups.get", "scim.groups.list",
  "scim.groups.patch", "scim.groups.replace", "scim.resourceTypes.get", "scim.resourceTypes.list", "scim.schemas.get",
  "scim.schemas.list", "scim.serviceProviderConfig", "scim.users.create", "scim.users.delete", "scim.users.get",
  "scim.users.list", "scim.users.patch", "scim.users.replace", "serviceHooks.create", "serviceHooks.delete",
  "serviceHooks.get", "serviceHooks.list", "serviceHooks.update",
  "auth.index", "auth.user", "organizations.list", "projects.listAll", "projects.createForTeam", "projects.update", "projects.delete",
  "projects.bulkUpdateIssues", "projects.bulkDeleteIssues", "projectKeys.create", "projectKeys.get", "projectKeys.update",
  "projectKeys.delete", "teams.list", "members.list",
] as const satisfies readonly (keyof FirstPartyEndpoints)[];

type Listed = (typeof TYPED_OPERATIONS)[number];
/** Compile-time check that the list above names every entry of the table. */
export const TABLE_COMPLETE: [Exclude<keyof FirstPartyEndpoints, Listed>] extends [never] ? true : Exclude<keyof FirstPartyEndpoints, Listed> = true;

/** The plugins' own API (admin operations): where a name exists there, it wins over the endpoint. */
type PluginApi = ApiOf<[typeof organizationsPlugin, typeof apiTokensPlugin, typeof installationsPlugin, typeof issuesPlugin, typeof ingestPlugin,
  typeof serviceHooksPlugin, typeof webhooksPlugin, typeof scimPlugin, typeof externalIssuesPlugin, typeof deliveriesPlugin, typeof alertsPlugin, typeof releasesPlugin]>;

type Without<E, A> = { [Area in keyof E]: Area extends keyof A ? Omit<E[Area], keyof A[Area]> : E[Area] };

/** `faultline.api`'s endpoint functions, typed from the definitions (inputs and outputs inferred). */
export type FirstPartyEndpointApi = Without<EndpointApi<FirstPartyEndpoints>, PluginApi>;
