// Stages 2 and 3 of a request: who is asking (authenticate), and may they (authorize).
import type { Kysely } from "kysely";
import { authenticateRequest, type AuthenticateDeps, unauthenticated } from "../../auth/authenticate.js";
import { authorizeOrganization } from "../../auth/organization-access.js";
import type { Principal } from "../../auth/principal.js";
import type { Scope } from "../../auth/scopes.js";
import type { Database, Organization } from "../../db/schema.js";
import { type AnyEndpoint, DSN_AUTHORIZATION, ORGANIZATION_PARAM } from "../endpoint.js";
import { ApiError } from "../errors.js";

/** The principal an endpoint is served for: null for an endpoint open to all, or an optional one without credentials. */
export async function authenticateFor(
  endpoint: AnyEndpoint,
  request: Request,
  deps: AuthenticateDeps,
): Promise<Principal | null> {
  if (endpoint.auth === "none") return null;
  if (endpoint.auth === "token-or-dsn" && DSN_AUTHORIZATION.test(request.headers.get("authorization") ?? ""))
    return null;
  const principal = await authenticateRequest(request, deps);
  if (!principal && endpoint.auth === "optional") return null;
  if (!principal) throw unauthenticated();
  // A SCIM token exists for the identity provider: it opens SCIM endpoints and nothing else.
  // A valid token used where it has no business: 403 (authenticated, not allowed), before the
  // organization is looked at, so the answer is the same for every organization.
  if (principal.kind === "scim" && !endpoint.path.includes("/scim/v2/")) {
    throw new ApiError(403, "SCIM tokens only open SCIM endpoints (/api/0/organizations/{organization}/scim/v2/…)");
  }
  if (endpoint.auth === "user" && principal.userId === null)
    throw new ApiError(403, "This endpoint requires a user token");
  return principal;
}

/** What a request may touch: the organization its path names, and the principal's scopes in it. */
export interface Access {
  organization: Organization | null;
  scopes: ReadonlySet<Scope>;
}

/** Organization first (404 hides existence), then scopes (403). */
export async function authorizeFor(
  endpoint: AnyEndpoint,
  principal: Principal | null,
  params: Record<string, string>,
  db: Kysely<Database>,
): Promise<Access> {
  if (!principal) return { organization: null, scopes: new Set() };
  const idOrSlug = params[ORGANIZATION_PARAM];
  const access =
    idOrSlug === undefined
      ? { organization: null, scopes: principal.scopes }
      : await authorizeOrganization(db, principal, idOrSlug);
  const required = endpoint.scopes ?? [];
  if (required.length > 0 && !required.some((scope) => access.scopes.has(scope))) throw forbidden(required);
  return access;
}

/** The 403 of a missing scope; exported for endpoints that authorize an organization they resolve themselves. */
export function forbidden(required: readonly Scope[]): ApiError {
  return new ApiError(
    403,
    "You do not have permission to perform this action.",
    { requiredScopes: required },
    { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${required.join(" ")}"` },
  );
}
