import type { Kysely } from "kysely";
import { int4Id } from "../db/ids.js";
import { PreparedStatement } from "../db/prepared.js";
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
  const key = organizationKey(idOrSlug);
  if (key === null) return Promise.resolve(undefined);
  return (key.column === "o.id" ? BY_ID : BY_SLUG).executeTakeFirst(db, key.value);
}

/**
 * The organization and the role of `userId`'s active membership in it (null without one): one
 * query, since it runs on every request of a user that names an organization.
 */
function findWithRole(db: Kysely<Database>, idOrSlug: string, userId: number) {
  const key = organizationKey(idOrSlug);
  if (key === null) return Promise.resolve(undefined);
  return (key.column === "o.id" ? WITH_ROLE_BY_ID : WITH_ROLE_BY_SLUG).executeTakeFirst(db, key.value, userId);
}

/** Which column names the organization, or null for a numeric id out of range (no such organization). */
function organizationKey(idOrSlug: string): { column: "o.id" | "o.slug"; value: string | number } | null {
  if (!/^\d+$/.test(idOrSlug)) return { column: "o.slug", value: idOrSlug };
  const id = int4Id(idOrSlug);
  return id === null ? null : { column: "o.id", value: id };
}

// Run on every request that names an organization: built and compiled once (db/prepared.ts).
const byColumn = (db: Kysely<Database>, column: "o.id" | "o.slug", value: string | number) =>
  db.selectFrom("organizations as o").selectAll("o").where(column, "=", value);
const withRole = (db: Kysely<Database>, column: "o.id" | "o.slug", value: string | number, userId: number) =>
  byColumn(db, column, value).select((eb) =>
    eb
      .selectFrom("organization_members as m")
      .select("m.role")
      .whereRef("m.organization_id", "=", "o.id")
      .where("m.user_id", "=", userId)
      .where("m.active", "=", true)
      .as("member_role"),
  );
const BY_ID = new PreparedStatement(1, (db, id: string | number) => byColumn(db, "o.id", id));
const BY_SLUG = new PreparedStatement(1, (db, slug: string | number) => byColumn(db, "o.slug", slug));
const WITH_ROLE_BY_ID = new PreparedStatement(2, (db, id: string | number, userId: number) =>
  withRole(db, "o.id", id, userId),
);
const WITH_ROLE_BY_SLUG = new PreparedStatement(2, (db, slug: string | number, userId: number) =>
  withRole(db, "o.slug", slug, userId),
);

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
