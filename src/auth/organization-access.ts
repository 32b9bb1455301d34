import type { Kysely } from "kysely";
import { int4Id } from "../db/ids.js";
import type { Database, Organization } from "../db/schema.js";
import { notFound } from "../http/errors.js";
import type { Principal } from "./principal.js";
import { intersectScopes, ROLE_SCOPES, type Scope } from "./scopes.js";

export interface OrganizationAccess {
  organization: Organization;
  /** What the principal may do in this organization. */
  scopes: ReadonlySet<Scope>;
}

/** Looks an organization up by numeric id (all digits) or slug. */
export async function findOrganization(db: Kysely<Database>, idOrSlug: string): Promise<Organization | undefined> {
  const query = db.selectFrom("organizations").selectAll();
  if (/^\d+$/.test(idOrSlug)) {
    const id = int4Id(idOrSlug);
    return id === null ? undefined : query.where("id", "=", id).executeTakeFirst();
  }
  return query.where("slug", "=", idOrSlug).executeTakeFirst();
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
  const organization = await findOrganization(db, idOrSlug);
  if (!organization) throw notFound();
  if (principal.organizationId !== null) {
    if (principal.organizationId !== organization.id) throw notFound();
    return { organization, scopes: principal.scopes };
  }
  if (principal.userId === null) throw notFound();
  const member = await db
    .selectFrom("organization_members")
    .select("role")
    .where("organization_id", "=", organization.id)
    .where("user_id", "=", principal.userId)
    .where("active", "=", true)
    .executeTakeFirst();
  if (!member) throw notFound();
  return { organization, scopes: intersectScopes(principal.scopes, ROLE_SCOPES[member.role]) };
}
