import { createHash, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { TokenCache } from "../../../auth/token-cache.js";
import type { Clock } from "../../../clock.js";
import { randomBase62, sha256Hex } from "../../../crypto/secrets.js";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import { ApiError, badRequest } from "../../../http/errors.js";
import { isoDate } from "../../../http/format.js";
import type { TokenIssuer } from "../../api-tokens/index.js";
import { grantedScopes } from "./consent.js";
import type { InstallationRepository } from "../installations/repository.js";
import type { AuthorizationBody } from "../installations/schemas.js";

/** What credentials are compared with when there is no installation: random, so nothing matches it. */
const UNKNOWN_CLIENT = { client_id: randomBase62(64), client_secret: randomBase62(64) };

/** Installation tokens live 8 hours (a lifetime chosen here); the refresh token gets the next one. */
export const INSTALLATION_TOKEN_LIFETIME_MS = 8 * 3_600_000;

/**
 * The OAuth exchange that lets an app call the API on behalf of the organization it is installed
 * in: the installation's one-time grant code (or a refresh token) and the app's client
 * credentials buy an installation-bound `fli_` token carrying the app's scopes that the
 * installation's organization consented to.
 */
export class InstallationAuthorizer {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: InstallationRepository,
    private readonly tokens: TokenIssuer,
    private readonly clock: Clock,
    private readonly tokenCache: TokenCache,
  ) {}

  async exchange(installationUuid: string, body: AuthorizationBody) {
    // An unknown installation gets the answer wrong credentials get (401), after the same work
    // (both lookups, both comparisons): neither status nor timing tells whether the uuid exists.
    const installation = await this.repository.findInstallation(installationUuid);
    const app = await this.repository.findAppById(installation?.app_id ?? 0);
    const expected = app ?? UNKNOWN_CLIENT;
    // Both compared, always, in constant time: no hint which of the two was wrong.
    const idMatches = constantTimeEqual(body.client_id, expected.client_id);
    const secretMatches = constantTimeEqual(body.client_secret, expected.client_secret);
    if (!installation || !app || !idMatches || !secretMatches) throw new ApiError(401, "Invalid client credentials");

    return runInTransaction(this.db(), async ({ trx, afterCommit }) => {
      // Locked before anything else (the order app updates and approvals lock in: installation,
      // then tokens): a concurrent change of the app's scopes or of the consent either committed
      // before and is read below, or waits and then re-scopes the token made here.
      const current = await this.repository.findInstallation(installation.uuid, trx, { lock: true });
      const currentApp = current && (await this.repository.findAppById(current.app_id, trx));
      if (!current || !currentApp) throw new ApiError(401, "Invalid client credentials");
      if (body.grant_type === "authorization_code") {
        const code = installation.code;
        // The UPDATE … WHERE code = … is what makes the code single-use under concurrency.
        if (
          code === null ||
          !constantTimeEqual(body.code, code) ||
          !(await this.repository.consumeCode(installation.id, code, trx))
        ) {
          throw invalidGrant("code", "The code is invalid or has already been used");
        }
      } else {
        // A refresh token is single-use too: the token it belonged to is replaced.
        const replaced = await trx
          .deleteFrom("api_tokens")
          .where("kind", "=", "installation")
          .where("installation_id", "=", installation.id)
          .where("refresh_token_hash", "=", sha256Hex(body.refresh_token))
          .returning("id")
          .executeTakeFirst();
        if (!replaced) throw invalidGrant("refresh_token", "The refresh token is invalid or has already been used");
        afterCommit(() => this.tokenCache.invalidate());
      }
      // Never more than the organization consented to, whatever the app asks for now.
      const scopes = grantedScopes(currentApp.scopes, current.consented_scopes);
      const refreshToken = randomBase62(48);
      const expiresAt = new Date(this.clock.now().getTime() + INSTALLATION_TOKEN_LIFETIME_MS);
      const { row, plaintext } = this.tokens.prepare({
        kind: "installation",
        userId: null,
        organizationId: installation.organization_id,
        installationId: installation.id,
        refreshTokenHash: sha256Hex(refreshToken),
        name: app.name,
        scopes,
        expiresAt,
      });
      await trx.insertInto("api_tokens").values(row).execute();
      return { token: plaintext, refreshToken, expiresAt: isoDate(expiresAt), scopes };
    });
  }
}

function invalidGrant(field: string, message: string): ApiError {
  return badRequest("Invalid grant", { [field]: [message] });
}

/** Equality that takes the same time wherever the strings differ (hashing first evens out lengths). */
function constantTimeEqual(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
