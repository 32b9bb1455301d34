import type { Kysely } from "kysely";
import { int4Id } from "../db/ids.js";
import type { Database, Organization } from "../db/schema.js";
import { notFound } from "../http/errors.js";
import type { Principal } from "./principal.js";
import { intersectScopes, ROLE_SCOPES, type Scope } from "./scopes.js";

/** No user has this id (ids start at 1): the membership lookup of a principal without a user. */
const NO_USER = 0;

export interface OrganizationAccess {
  organization: Organization;
  /** What the principal may do in this organization. */
  scopes: ReadonlySet<Scope>;
}

/** Looks an organization up by numeric id (all digits) or slug. */
export async function findOrganization(db: Kysely<Database>, idOrSlug: string): Promise<Organization | undefined> {
  const row = await findWithRole(db, idOrSlug, null);
  if (!row) return undefined;
  const { member_role: _role, ...organization } = row;
  return organization;
}

/**
 * The organization and, for `userId`, the role of its active membership (null without one): one
 * query, since it runs on every request that names an organization.
 */
function findWithRole(db: Kysely<Database>, idOrSlug: string, userId: number | null) {
  const id = /^\d+$/.test(idOrSlug) ? int4Id(idOrSlug) : undefined;
  if (id === null) return Promise.resolve(undefined);
  return db
    .selectFrom("organizations as o")
    .selectAll("o")
    .select((eb) =>
      eb
        .selectFrom("organization_members as m")
        .select("m.role")
        .whereRef("m.organization_id", "=", "o.id")
        .where("m.user_id", "=", userId ?? NO_USER)
        .where("m.active", "=", true)
        .as("member_role"),
    )
    .where(id === undefined ? "o.slug" : "o.id", "=", id ?? idOrSlug)
    .executeTakeFirst();
}

/**
 * Resolves the organization named in a URL for this principal. Anything the principal may not
 * see — an unknown organization, another organization than its token's, one where its user is
 * not an active member — is the same 404, so no response reveals that an organization exists.
 */
export async function authorizeOrganization(
  db: Kysely<Database>,
  principal: Principal,
  idOrSlug: string,
): Promise<OrganizationAccess> {
  const row = await findWithRole(db, idOrSlug, principal.organizationId === null ? principal.userId : null);
  if (!row) throw notFound();
  const { member_role: role, ...organization } = row;
  if (principal.organizationId !== null) {
    if (principal.organizationId !== organization.id) throw notFound();
    return { organization, scopes: principal.scopes };
  }
  if (role === null) throw notFound();
  return { organization, scopes: intersectScopes(principal.scopes, ROLE_SCOPES[role]) };
}
