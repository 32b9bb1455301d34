import type { MemberRole, Organization, Project, ProjectKey, Team, User } from "../../../db/schema.js";
import { idString, isoDate } from "../../../http/format.js";

export function organizationFeatures(organization: Organization): string[] {
  const features: string[] = [];
  if (organization.saml_configured) features.push("sso-saml2");
  if (organization.scim_enabled) features.push("scim");
  return features;
}

/** `origin + mount prefix`, no trailing slash: where this host's `/api/0/` lives. */
const rootOf = (baseUrl: URL | null) => (baseUrl ? baseUrl.toString().replace(/\/+$/, "") : "");

/**
 * Sentry's organization summary. `links.regionUrl` is where Sentry's tools send API calls for
 * this organization (the MCP server does): this host's own URL. Fields for features Faultline
 * does not have carry Sentry's values for an organization without them.
 */
export function serializeOrganization(organization: Organization, baseUrl: URL | null = null) {
  const root = rootOf(baseUrl);
  return {
    id: idString(organization.id),
    slug: organization.slug,
    status: { id: "active", name: "active" },
    name: organization.name,
    plan: organization.plan,
    features: organizationFeatures(organization),
    dateCreated: isoDate(organization.date_created),
    isEarlyAdopter: false,
    require2FA: false,
    avatar: { avatarType: "letter_avatar", avatarUuid: null, avatarUrl: null },
    links: { organizationUrl: root, regionUrl: root },
    hasAuthProvider: organization.saml_configured,
    allowMemberInvite: true,
    allowMemberProjectCreation: true,
    allowSuperuserAccess: false,
  };
}

/** Sentry's product areas a project may have data in; Faultline keeps errors only. */
const PRODUCT_FLAGS = [
  "hasFeedbacks",
  "hasFlags",
  "hasMinifiedStackTrace",
  "hasMonitors",
  "hasNewFeedbacks",
  "hasProfiles",
  "hasReplays",
  "hasSessions",
  "hasInsightsHttp",
  "hasInsightsDb",
  "hasInsightsAssets",
  "hasInsightsAppStart",
  "hasInsightsScreenLoad",
  "hasInsightsVitals",
  "hasInsightsCaches",
  "hasInsightsQueues",
  "hasInsightsAgentMonitoring",
  "hasInsightsMCP",
  "hasLogs",
  "hasTraceMetrics",
  "hasUserReports",
] as const;

const NO_PRODUCT_DATA = Object.fromEntries(PRODUCT_FLAGS.map((flag) => [flag, false])) as Record<
  (typeof PRODUCT_FLAGS)[number],
  false
>;

/**
 * Sentry's project summary (the list item). `access` is the caller's scopes here, as Sentry
 * reports them; without a caller (in-process) it is empty.
 */
export function serializeProject(project: Project, access: readonly string[] = []) {
  return {
    id: idString(project.id),
    slug: project.slug,
    name: project.name,
    platform: project.platform,
    dateCreated: isoDate(project.date_created),
    features: project.features,
    isBookmarked: false,
    isMember: true,
    firstEvent: null,
    firstTransactionEvent: false,
    access: [...access],
    hasAccess: true,
    ...NO_PRODUCT_DATA,
    team: null,
    teams: [],
    platforms: project.platform ? [project.platform] : [],
    environments: [],
    latestRelease: null,
  };
}

/**
 * Sentry's project detail: the summary plus the settings Sentry's schema requires, with Sentry's
 * defaults where Faultline has no such setting (digests, grouping configs…), and the
 * organization. `settings` (the plugins' project settings, projects/project-settings.ts) override those
 * defaults field by field.
 */
export function serializeProjectDetail(
  project: Project,
  organization: Organization,
  access: readonly string[],
  baseUrl: URL | null,
  settings: Record<string, unknown> = {},
) {
  return {
    ...serializeProject(project, access),
    isInternal: false,
    isPublic: false,
    avatar: { avatarType: "letter_avatar", avatarUuid: null, avatarUrl: null },
    color: "#3f70b3",
    status: "active",
    options: {},
    digestsMinDelay: 300,
    digestsMaxDelay: 1800,
    subjectPrefix: "",
    allowedDomains: ["*"],
    resolveAge: 0,
    dataScrubber: false,
    dataScrubberDefaults: false,
    safeFields: [],
    storeCrashReports: null,
    sensitiveFields: [],
    subjectTemplate: "$shortID - $title",
    securityToken: "",
    securityTokenHeader: null,
    verifySSL: false,
    scrubIPAddresses: false,
    scrapeJavaScript: false,
    highlightTags: [],
    highlightContext: {},
    highlightPreset: { tags: [], context: {} },
    groupingConfig: "faultline:default",
    derivedGroupingEnhancements: "",
    groupingEnhancements: "",
    secondaryGroupingExpiry: 0,
    secondaryGroupingConfig: null,
    fingerprintingRules: "",
    organization: serializeOrganization(organization, baseUrl),
    plugins: [],
    processingIssues: 0,
    defaultEnvironment: null,
    relayPiiConfig: null,
    builtinSymbolSources: [],
    dynamicSamplingBiases: [],
    symbolSources: "[]",
    isDynamicallySampled: false,
    tempestFetchScreenshots: false,
    autofixAutomationTuning: "off",
    seerScannerAutomation: false,
    debugFilesRole: null,
    ...settings,
  };
}

/** DSN as SDKs expect it: `<scheme>://<public key>@<host><mount prefix>/<project id>`. */
export function buildDsn(baseUrl: URL, publicKey: string, projectId: number): string {
  const prefix = baseUrl.pathname.replace(/\/+$/, "");
  return `${baseUrl.protocol}//${publicKey}@${baseUrl.host}${prefix}/${projectId}`;
}

/**
 * The DSN and Sentry's derived endpoint URLs. Faultline keys have no secret part, so `secret` is
 * the public DSN (what Sentry shows for a key whose secret is not needed); the endpoint URLs
 * other than the DSN are Sentry's spellings for clients that read them — Faultline serves the
 * envelope and store endpoints only.
 */
function dsnUrls(baseUrl: URL | null, key: ProjectKey) {
  if (!baseUrl) return { public: null, secret: null };
  const dsn = buildDsn(baseUrl, key.public_key, key.project_id);
  const api = `${rootOf(baseUrl)}/api/${key.project_id}`;
  const withKey = (path: string) => `${api}/${path}/?sentry_key=${key.public_key}`;
  return {
    public: dsn,
    secret: dsn,
    csp: withKey("csp-report"),
    security: withKey("security"),
    minidump: withKey("minidump"),
    nel: withKey("nel"),
    unreal: `${api}/unreal/${key.public_key}/`,
    crons: `${api}/cron/___MONITOR_SLUG___/${key.public_key}/`,
    cdn: `${rootOf(baseUrl)}/js-sdk-loader/${key.public_key}.min.js`,
    playstation: withKey("playstation"),
    integration: `${api}/integration/`,
    otlp_traces: `${api}/integration/otlp/v1/traces`,
    otlp_logs: `${api}/integration/otlp/v1/logs`,
  };
}

export function serializeProjectKey(key: ProjectKey, baseUrl: URL | null) {
  return {
    id: idString(key.id),
    name: key.name,
    label: key.name,
    public: key.public_key,
    secret: null,
    projectId: key.project_id,
    isActive: key.is_active,
    rateLimit:
      key.rate_limit_per_minute === null
        ? null
        : { window: key.rate_limit_window ?? 60, count: key.rate_limit_per_minute },
    dateCreated: isoDate(key.date_created),
    dsn: dsnUrls(baseUrl, key),
    browserSdkVersion: "latest",
    browserSdk: { choices: [["latest", "latest"]] },
    dynamicSdkLoaderOptions: {
      hasReplay: false,
      hasPerformance: false,
      hasDebug: false,
      hasFeedback: false,
      hasLogsAndMetrics: false,
    },
  };
}

export function serializeUser(user: User) {
  return { id: idString(user.id), username: user.username, email: user.email, name: user.name };
}

export function serializeTeam(team: Team) {
  return { id: idString(team.id), slug: team.slug, name: team.name, dateCreated: isoDate(team.date_created) };
}

const LETTER_AVATAR = { avatarType: "letter_avatar", avatarUuid: null, avatarUrl: null };

/**
 * Sentry's team list item. Faultline does not link teams to projects, so `projects` is empty;
 * `isMember` and `access` are the caller's.
 */
export function serializeTeamSummary(
  team: Team & { member_count: string | number | null },
  isMember: boolean,
  access: readonly string[],
) {
  return {
    ...serializeTeam(team),
    isMember,
    teamRole: null,
    flags: { "idp:provisioned": false },
    access: [...access],
    hasAccess: true,
    isPending: false,
    memberCount: Number(team.member_count ?? 0),
    avatar: LETTER_AVATAR,
    externalTeams: [],
    projects: [],
  };
}

/** Sentry's user object, as the auth probe, the member list and `GET /api/0/auth/` carry it. */
export function serializeUserDetail(user: Pick<User, "id" | "username" | "email" | "name" | "date_created">) {
  // Sentry's users always have an email (its clients parse it as a string); "" where Faultline has none.
  const email = user.email ?? "";
  return {
    id: idString(user.id),
    name: user.name || user.username,
    username: user.username,
    email,
    avatarUrl: null,
    isActive: true,
    hasPasswordAuth: false,
    isManaged: false,
    dateJoined: isoDate(user.date_created),
    lastLogin: null,
    has2fa: false,
    lastActive: null,
    isSuperuser: false,
    isStaff: false,
    experiments: {},
    emails: email ? [{ id: idString(user.id), email, is_verified: true }] : [],
    avatar: LETTER_AVATAR,
  };
}

export interface MemberRow {
  id: number;
  role: MemberRole;
  active: boolean;
  date_created: Date;
  user_id: number;
  username: string;
  email: string | null;
  name: string;
  user_date_created: Date;
  team_slugs: string[] | null;
}

/** Sentry's organization member. Faultline has no invitations: every member is an accepted one. */
export function serializeMember(row: MemberRow) {
  const user = serializeUserDetail({
    id: row.user_id,
    username: row.username,
    email: row.email,
    name: row.name,
    date_created: row.user_date_created,
  });
  return {
    id: idString(row.id),
    email: user.email,
    name: user.name,
    user,
    role: row.role,
    orgRole: row.role,
    roleName: row.role.charAt(0).toUpperCase() + row.role.slice(1),
    pending: false,
    expired: false,
    flags: {
      "idp:provisioned": false,
      "idp:role-restricted": false,
      "sso:linked": false,
      "sso:invalid": false,
      "member-limit:restricted": false,
      "partnership:restricted": false,
    },
    dateCreated: isoDate(row.date_created),
    inviteStatus: "approved",
    inviterName: null,
    teams: row.team_slugs ?? [],
    teamRoles: (row.team_slugs ?? []).map((teamSlug) => ({ teamSlug, role: null })),
    isActive: row.active,
  };
}
