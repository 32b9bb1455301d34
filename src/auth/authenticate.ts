import type { Kysely } from "kysely";
import type { Clock } from "../clock.js";
import type { Database } from "../db/schema.js";
import { ApiError } from "../http/errors.js";
import type { AuthenticateHook } from "../options.js";
import type { Principal, PrincipalInput } from "./principal.js";
import { expandScopes } from "./scopes.js";
import type { TokenCache, TokenRecord } from "./token-cache.js";
import { hashToken, looksLikeToken } from "./token-secret.js";

const challenge = { "WWW-Authenticate": 'Bearer realm="api"' };
export const NO_CREDENTIALS = "Authentication credentials were not provided.";

export function unauthenticated(detail = NO_CREDENTIALS): ApiError {
  return new ApiError(401, detail, {}, challenge);
}

/** What authenticating a request needs: the database, the clock, the host's hook and the token cache. */
export interface AuthenticateDeps {
  db: Kysely<Database>;
  clock: Clock;
  hook?: AuthenticateHook;
  cache?: TokenCache;
}

/**
 * Finds the caller: the host's `authenticate` hook first (it may return null to fall through),
 * then the bearer token. Returns null when the request carries no credentials at all;
 * throws 401 for credentials that are malformed, unknown or expired. With a `cache`, a token
 * found in the last few seconds is not read again (see token-cache.ts).
 */
export async function authenticateRequest(request: Request, deps: AuthenticateDeps): Promise<Principal | null> {
  const fromHost = deps.hook ? await deps.hook(request) : null;
  if (fromHost) return hostPrincipal(fromHost);

  const header = request.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match || !looksLikeToken(match[1] as string)) throw unauthenticated("Invalid token");

  const row = await findToken(hashToken(match[1] as string), deps);
  if (!row) throw unauthenticated("Invalid token");
  // Checked on every request, cached or not: a token never outlives its expiry.
  if (row.expires_at && row.expires_at.getTime() <= deps.clock.now().getTime()) throw unauthenticated("Token expired");
  return {
    kind: row.kind,
    userId: row.user_id,
    organizationId: row.organization_id,
    installationId: row.installation_id,
    scopes: expandScopes(row.scopes),
    tokenId: row.id,
  };
}

async function findToken(
  hash: string,
  deps: { db: Kysely<Database>; clock: Clock; cache?: TokenCache },
): Promise<TokenRecord | undefined> {
  const now = deps.clock.now().getTime();
  const cached = deps.cache?.lookup(hash, now);
  if (cached) return cached;
  const readAt = deps.cache?.generation() ?? 0;
  const row = await deps.db
    .selectFrom("api_tokens")
    .select(["id", "kind", "user_id", "organization_id", "installation_id", "scopes", "expires_at"])
    .where("token_hash", "=", hash)
    .executeTakeFirst();
  if (row) deps.cache?.remember(hash, row, now, readAt);
  return row;
}

function hostPrincipal(input: PrincipalInput): Principal {
  return {
    kind: "host",
    userId: "userId" in input ? input.userId : null,
    organizationId: "organizationId" in input ? input.organizationId : null,
    installationId: null,
    scopes: expandScopes(input.scopes),
    tokenId: null,
  };
}
