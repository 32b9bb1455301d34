import type { MemberRole } from "../../db/schema.js";
import { ENTERPRISE_USER_SCHEMA } from "./constants.js";
import type { GroupRow, UserRow } from "./repository.js";
import { isObject, type JsonObject } from "./resources/input.js";

/** A member as hosts mirror it into their own user tables. */
export interface ScimMemberSnapshot {
  /** The member id: the SCIM User id. */
  id: string;
  /** The Faultline user account behind the membership. */
  userId: string;
  userName: string;
  externalId: string | null;
  /** The primary email (else the first one). */
  email: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  role: MemberRole;
  active: boolean;
  department: string | null;
  employeeNumber: string | null;
}

export interface ScimTeamSnapshot {
  /** The team id: the SCIM Group id. */
  id: string;
  slug: string;
  name: string;
  externalId: string | null;
}

/** A member added to or removed from a team. */
export interface ScimTeamMemberRef {
  id: string;
  userId: string;
}

declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    /** A member was created through SCIM (and its user account, when none had that email). `resource` is the SCIM User. */
    "member.provisioned": { member: ScimMemberSnapshot; resource: JsonObject };
    /** Any change through SCIM PUT or PATCH (also sent with member.deactivated / member.reactivated). */
    "member.updated": { member: ScimMemberSnapshot; previous: ScimMemberSnapshot; resource: JsonObject };
    /** `active: false`: the member keeps its membership but has no access in this organization. */
    "member.deactivated": { member: ScimMemberSnapshot; resource: JsonObject };
    "member.reactivated": { member: ScimMemberSnapshot; resource: JsonObject };
    /** SCIM DELETE: the membership (and its team memberships) is gone; the user account stays. */
    "member.removed": { member: ScimMemberSnapshot; resource: JsonObject };
    "team.created": { team: ScimTeamSnapshot; resource: JsonObject };
    "team.updated": { team: ScimTeamSnapshot; previous: ScimTeamSnapshot; resource: JsonObject };
    "team.deleted": { team: ScimTeamSnapshot };
    "team.members_changed": { team: ScimTeamSnapshot; added: ScimTeamMemberRef[]; removed: ScimTeamMemberRef[] };
  }
}

const text = (value: unknown) => (typeof value === "string" ? value : null);

export function primaryEmail(attributes: JsonObject): string | null {
  const emails = Array.isArray(attributes.emails) ? attributes.emails.filter(isObject) : [];
  const chosen = emails.find((email) => email.primary === true) ?? emails[0];
  return text(chosen?.value);
}

export function memberSnapshot(row: UserRow): ScimMemberSnapshot {
  const name = isObject(row.attributes.name) ? row.attributes.name : {};
  const enterprise = isObject(row.attributes[ENTERPRISE_USER_SCHEMA])
    ? (row.attributes[ENTERPRISE_USER_SCHEMA] as JsonObject)
    : {};
  return {
    id: String(row.id),
    userId: String(row.user_id),
    userName: row.user_name,
    externalId: row.external_id,
    email: primaryEmail(row.attributes),
    givenName: text(name.givenName),
    familyName: text(name.familyName),
    displayName: text(row.attributes.displayName),
    role: row.role,
    active: row.active,
    department: text(enterprise.department),
    employeeNumber: text(enterprise.employeeNumber),
  };
}

export function teamSnapshot(row: GroupRow): ScimTeamSnapshot {
  return { id: String(row.id), slug: row.slug, name: row.name, externalId: row.external_id };
}
