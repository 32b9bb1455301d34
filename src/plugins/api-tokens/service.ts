import type { Insertable } from "kysely";
import { createTokenSecret } from "../../auth/token-secret.js";
import type { TokenCache } from "../../auth/token-cache.js";
import type { Clock } from "../../clock.js";
import { isUniqueViolation } from "../../db/errors.js";
import type { ApiTokensTable, TokenKind } from "../../db/schema.js";
import { ApiError, badRequest, notFound } from "../../http/errors.js";
import { parseOrThrow } from "../../http/validate.js";
import type { OrganizationService } from "../organizations/index.js";
import type { TokenRepository } from "./repository.js";
import { type CreateTokenInput, createTokenInput } from "./schemas.js";
import { serializeToken } from "./serialize.js";

export interface NewToken {
  kind: TokenKind;
  userId: number | null;
  organizationId: number | null;
  /** Set for installation tokens (OAuth exchange). */
  installationId?: number | null;
  /** SHA-256 of the OAuth refresh token that can replace this token. */
  refreshTokenHash?: string | null;
  name: string | null;
  scopes: string[];
  expiresAt: Date | null;
  plaintext?: string;
}

/** Issues and revokes API tokens. The plaintext is returned once, at creation, and never stored. */
export class TokenService {
  constructor(
    private readonly repository: TokenRepository,
    private readonly organizations: OrganizationService,
    private readonly clock: Clock,
    private readonly tokenCache: TokenCache,
  ) {}

  /** In-process issuing (`faultline.api.tokens.create`): user, organization or SCIM tokens. */
  async create(input: CreateTokenInput) {
    const values = parseOrThrow(createTokenInput, input);
    if (values.expiresAt && values.expiresAt <= this.clock.now()) throw badRequest("expiresAt must be in the future");
    if (values.user !== undefined) {
      const user = await this.organizations.getUser(values.user);
      if (!user) throw notFound(`Unknown user ${JSON.stringify(values.user)}`);
      return this.issue({
        kind: "user",
        userId: Number(user.id),
        organizationId: null,
        name: values.name,
        scopes: values.scopes,
        expiresAt: values.expiresAt,
        plaintext: values.token,
      });
    }
    const organization = await this.organizations.requireOrganization(values.organization as string | number);
    const kind = values.kind === "scim" ? "scim" : "organization";
    return this.issue({
      kind,
      userId: null,
      organizationId: organization.id,
      name: values.name,
      scopes: values.scopes,
      expiresAt: values.expiresAt,
      plaintext: values.token,
    });
  }

  async issue(token: NewToken) {
    const { row: values, plaintext } = this.prepare(token);
    try {
      const row = await this.repository.insert(values);
      return { ...serializeToken(row), token: plaintext };
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, "This token value is already in use");
      throw error;
    }
  }

  /**
   * The row of a new token and its plaintext, without inserting it: for callers that insert it in
   * their own transaction (the OAuth exchange consumes a grant and issues a token atomically).
   */
  prepare(token: NewToken): { row: Insertable<ApiTokensTable>; plaintext: string } {
    let secret;
    try {
      secret = createTokenSecret(token.kind, token.plaintext);
    } catch (error) {
      throw badRequest((error as Error).message, { token: [(error as Error).message] });
    }
    const row: Insertable<ApiTokensTable> = {
      kind: token.kind,
      user_id: token.userId,
      organization_id: token.organizationId,
      installation_id: token.installationId ?? null,
      refresh_token_hash: token.refreshTokenHash ?? null,
      name: token.name,
      token_hash: secret.hash,
      token_prefix: secret.prefix,
      token_last_characters: secret.lastCharacters,
      scopes: token.scopes,
      expires_at: token.expiresAt,
      date_created: this.clock.now(),
    };
    return { row, plaintext: secret.plaintext };
  }

  async listForUser(userId: number) {
    return (await this.repository.listForUser(userId)).map(serializeToken);
  }

  async revokeForUser(userId: number, tokenId: number): Promise<void> {
    if (!(await this.repository.deleteForUser(userId, tokenId))) throw notFound();
    this.tokenCache.invalidate();
  }
}
