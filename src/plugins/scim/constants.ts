/** Schema and message URNs of RFC 7643 / 7644 that Faultline speaks. */
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE_USER_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const LIST_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const SERVICE_PROVIDER_CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
export const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
export const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

export const SCIM_MEDIA_TYPE = "application/scim+json";

/** Route prefix of every SCIM endpoint (below the host's mount point). */
export const SCIM_BASE = "/api/0/organizations/{organization_id_or_slug}/scim/v2";

/** RFC 7644 §3.4.2.4: we page at most this many resources (also `filter.maxResults`). */
export const MAX_RESULTS = 100;
/** RFC 7644 §3.5.2 leaves the limit to us; more operations than this → 400 tooMany. */
export const MAX_PATCH_OPERATIONS = 100;

/** What an organization's SCIM token may do (docs/scim.md, "1. Enable SCIM for an organization"). */
export const SCIM_TOKEN_SCOPES = ["member:admin", "team:admin"] as const;

/** Roles an identity provider may give through `svcOrgRole` (never `owner`). */
export const PROVISIONABLE_ROLES = ["member", "admin", "manager", "billing"] as const;
export type ProvisionableRole = (typeof PROVISIONABLE_ROLES)[number];
