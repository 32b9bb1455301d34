import type { Organization, Project, ProjectKey, Team, User } from "../../db/schema.js";
import { idString, isoDate } from "../../http/format.js";

export function organizationFeatures(organization: Organization): string[] {
  const features: string[] = [];
  if (organization.saml_configured) features.push("sso-saml2");
  if (organization.scim_enabled) features.push("scim");
  return features;
}

export function serializeOrganization(organization: Organization) {
  return {
    id: idString(organization.id),
    slug: organization.slug,
    name: organization.name,
    plan: organization.plan,
    features: organizationFeatures(organization),
    dateCreated: isoDate(organization.date_created),
  };
}

export function serializeProject(project: Project) {
  return {
    id: idString(project.id),
    slug: project.slug,
    name: project.name,
    platform: project.platform,
    dateCreated: isoDate(project.date_created),
    features: project.features,
  };
}

/** DSN as SDKs expect it: `<scheme>://<public key>@<host><mount prefix>/<project id>`. */
export function buildDsn(baseUrl: URL, publicKey: string, projectId: number): string {
  const prefix = baseUrl.pathname.replace(/\/+$/, "");
  return `${baseUrl.protocol}//${publicKey}@${baseUrl.host}${prefix}/${projectId}`;
}

export function serializeProjectKey(key: ProjectKey, baseUrl: URL | null) {
  return {
    id: idString(key.id),
    name: key.name,
    public: key.public_key,
    isActive: key.is_active,
    dateCreated: isoDate(key.date_created),
    dsn: { public: baseUrl ? buildDsn(baseUrl, key.public_key, key.project_id) : null },
  };
}

export function serializeUser(user: User) {
  return { id: idString(user.id), username: user.username, email: user.email, name: user.name };
}

export function serializeTeam(team: Team) {
  return { id: idString(team.id), slug: team.slug, name: team.name, dateCreated: isoDate(team.date_created) };
}
