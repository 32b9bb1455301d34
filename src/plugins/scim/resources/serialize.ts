import { isoDate } from "../../../http/format.js";
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, LIST_RESPONSE_SCHEMA, USER_SCHEMA } from "../constants.js";
import type { GroupRow, UserRow } from "../repository.js";
import type { JsonObject } from "./input.js";

function meta(resourceType: "User" | "Group", row: { created: Date; last_modified: Date }, location: string) {
  return {
    resourceType,
    created: isoDate(row.created),
    lastModified: isoDate(row.last_modified),
    location,
    version: `W/"${row.last_modified.getTime()}"`,
  };
}

/** A member as a SCIM User; `baseUrl` is the organization's `…/scim/v2`. */
export function serializeUser(row: UserRow, baseUrl: string): JsonObject {
  const { [ENTERPRISE_USER_SCHEMA]: enterprise, ...attributes } = row.attributes;
  return {
    schemas: enterprise === undefined ? [USER_SCHEMA] : [USER_SCHEMA, ENTERPRISE_USER_SCHEMA],
    id: String(row.id),
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.user_name,
    ...attributes,
    active: row.active,
    svcOrgRole: row.role,
    // Sentry's spelling of the same attribute, for identity providers configured for Sentry.
    sentryOrgRole: row.role,
    ...(row.groups !== null
      ? { groups: row.groups.map((group) => ({ ...group, $ref: `${baseUrl}/Groups/${group.value}`, type: "direct" })) }
      : {}),
    ...(enterprise === undefined ? {} : { [ENTERPRISE_USER_SCHEMA]: enterprise }),
    meta: meta("User", row, `${baseUrl}/Users/${row.id}`),
  };
}

/** A team as a SCIM Group; members are left out when they were not loaded (`excludedAttributes=members`). */
export function serializeGroup(row: GroupRow, baseUrl: string): JsonObject {
  return {
    schemas: [GROUP_SCHEMA],
    id: String(row.id),
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    displayName: row.name,
    ...(row.members !== null
      ? {
          members: row.members.map((member) => ({ ...member, $ref: `${baseUrl}/Users/${member.value}`, type: "User" })),
        }
      : {}),
    meta: meta("Group", row, `${baseUrl}/Groups/${row.id}`),
  };
}

/** RFC 7644 §3.4.2: numbers as JSON numbers; no match is 200 with no Resources, never 404. */
export function listResponse(resources: JsonObject[], totalResults: number, startIndex: number) {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
