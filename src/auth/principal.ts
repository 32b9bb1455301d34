import type { TokenKind } from "../db/schema.js";
import type { Scope } from "./scopes.js";

/**
 * Who is calling. A host's `authenticate` hook returns one of these for its own sessions:
 * a Faultline user (acts wherever that user is a member, limited by their role) or one
 * organization (no user: per-user fields read false).
 */
export type PrincipalInput =
  { userId: number; scopes: readonly string[] } | { organizationId: number; scopes: readonly string[] };

/** A resolved caller, as endpoint handlers see it. */
export interface Principal {
  kind: TokenKind | "host";
  /** The acting user, when user-bound. */
  userId: number | null;
  /** The one organization this principal is bound to, when organization-bound. */
  organizationId: number | null;
  /** The installation, for installation-bound tokens. */
  installationId: number | null;
  /** The token's own scopes with implications applied (before any role limit). */
  scopes: ReadonlySet<Scope>;
  /** The API token row used, if any. */
  tokenId: number | null;
}
