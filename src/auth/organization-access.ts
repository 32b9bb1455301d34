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
export function findOrganization(db: Kysely<Database>, idOrSlug: string): Promise<Organization | undefined> {
  return byIdOrSlug(db, idOrSlug)?.executeTakeFirst() ?? Promise.resolve(undefined);
}

/**
 * The organization and the role of `userId`'s active membership in it (null without one): one
 * query, since it runs on every request of a user that names an organization.
 */
function findWithRole(db: Kysely<Database>, idOrSlug: string, userId: number) {
  const query = byIdOrSlug(db, idOrSlug)?.select((eb) =>
    eb
      .selectFrom("organization_members as m")
      .select("m.role")
      .whereRef("m.organization_id", "=", "o.id")
      .where("m.user_id", "=", userId)
      .where("m.active", "=", true)
      .as("member_role"),
  );
  return query?.executeTakeFirst() ?? Promise.resolve(undefined);
}

/** The organization query, or undefined for a numeric id out of range (no such organization). */
function byIdOrSlug(db: Kysely<Database>, idOrSlug: string) {
  const id = /^\d+$/.test(idOrSlug) ? int4Id(idOrSlug) : undefined;
  if (id === null) return undefined;
  return db
    .selectFrom("organizations as o")
    .selectAll("o")
    .where(id === undefined ? "o.slug" : "o.id", "=", id ?? idOrSlug);
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
  if (principal.organizationId !== null) {
    const organization = await findOrganization(db, idOrSlug);
    if (organization?.id !== principal.organizationId) throw notFound();
    return { organization, scopes: principal.scopes };
  }
  const row = principal.userId === null ? undefined : await findWithRole(db, idOrSlug, principal.userId);
  if (!row?.member_role) throw notFound();
  const { member_role: role, ...organization } = row;
  return { organization, scopes: intersectScopes(principal.scopes, ROLE_SCOPES[role]) };
}
