import type { MemberRole } from "../../../db/schema.js";
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, PROVISIONABLE_ROLES, USER_SCHEMA } from "../constants.js";
import { invalidValue } from "../errors.js";
import type { GroupRow, UserRow } from "../repository.js";
import { isObject, type JsonObject } from "./input.js";

/** What a SCIM User write decides: the membership's columns and the attributes stored as sent. */
export interface UserState {
  userName: string;
  externalId: string | null;
  active: boolean;
  role: MemberRole;
  /** Everything else (name, emails, the enterprise extension under its URN, …). */
  attributes: JsonObject;
}

export interface GroupState {
  displayName: string;
  externalId: string | null;
  memberIds: number[];
}

/** `svcOrgRole`, case-insensitive; an owner keeps reading (and may re-send) `owner`, which SCIM cannot grant. */
function readRole(value: unknown, current: MemberRole): MemberRole {
  if (value === undefined) return current;
  const lowered = typeof value === "string" ? value.toLowerCase() : "";
  const role = PROVISIONABLE_ROLES.find((candidate) => candidate === lowered);
  if (role) return role;
  if (lowered === current) return current;
  throw invalidValue(`"svcOrgRole" must be one of ${PROVISIONABLE_ROLES.join(", ")}`);
}

/** A canonical User (see canonicalResource) as state; absent `active` and `svcOrgRole` keep their current values. */
export function userStateFrom(canonical: JsonObject, current: { role: MemberRole; active: boolean }): UserState {
  const { userName, externalId, active, svcOrgRole, ...attributes } = canonical;
  if (typeof userName !== "string" || userName.trim() === "") throw invalidValue('"userName" is required');
  return {
    userName,
    externalId: typeof externalId === "string" ? externalId : null,
    active: typeof active === "boolean" ? active : current.active,
    role: readRole(svcOrgRole, current.role),
    attributes,
  };
}

/** The stored state of a member, for comparisons and PATCH. */
export function userStateOf(row: UserRow): UserState {
  return {
    userName: row.user_name,
    externalId: row.external_id,
    active: row.active,
    role: row.role,
    attributes: row.attributes,
  };
}

/** The writable part of a User, which PATCH operations apply to. */
export function userPatchDocument(row: UserRow): JsonObject {
  const state = userStateOf(row);
  return {
    schemas: [USER_SCHEMA, ...(ENTERPRISE_USER_SCHEMA in state.attributes ? [ENTERPRISE_USER_SCHEMA] : [])],
    // Read-only: present so that an operation restating it is recognised as no change.
    id: String(row.id),
    userName: state.userName,
    ...(state.externalId !== null ? { externalId: state.externalId } : {}),
    active: state.active,
    svcOrgRole: state.role,
    ...state.attributes,
  };
}

const MEMBER_ID = /^\d{1,9}$/;

export function groupStateFrom(canonical: JsonObject): GroupState {
  const { displayName, externalId, members } = canonical;
  if (typeof displayName !== "string" || displayName.trim() === "") throw invalidValue('"displayName" is required');
  const memberIds = new Set<number>();
  for (const member of Array.isArray(members) ? members : []) {
    const value = isObject(member) ? member.value : undefined;
    if (typeof value !== "string" || !MEMBER_ID.test(value))
      throw invalidValue(`Unknown member ${JSON.stringify(value ?? null)}: "members.value" must be a User id`);
    memberIds.add(Number(value));
  }
  return { displayName, externalId: typeof externalId === "string" ? externalId : null, memberIds: [...memberIds] };
}

export function groupStateOf(row: GroupRow): GroupState {
  return {
    displayName: row.name,
    externalId: row.external_id,
    memberIds: (row.members ?? []).map((member) => Number(member.value)),
  };
}

export function groupPatchDocument(row: GroupRow): JsonObject {
  return {
    schemas: [GROUP_SCHEMA],
    id: String(row.id),
    displayName: row.name,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    // Always an array, so that removing from an empty group is a no-op rather than a missing target.
    members: (row.members ?? []).map((member) => ({ value: member.value, display: member.display })),
  };
}

/** JSON with object keys sorted: equal states compare equal whatever order their keys came in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
