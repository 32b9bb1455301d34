import type { Kysely } from "kysely";
import type { Database, Organization } from "../../../db/schema.js";
import { ApiError } from "../../../http/errors.js";
import type { TokenCache } from "../../../auth/token-cache.js";
import type { TokenIssuer } from "../../api-tokens/index.js";
import type { OrganizationService } from "../../organizations/index.js";
import { scimDb } from "../requests/call.js";
import { SCIM_TOKEN_SCOPES } from "../constants.js";
import { describeMissing, missingScimPrerequisites } from "./gating.js";
import type { ScimRepository } from "../repository.js";

type Reference = string | number;

/** `faultline.api.scim`: turning SCIM on for an organization and handing out its token. */
export class ScimSetupService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: ScimRepository,
    private readonly organizations: OrganizationService,
    private readonly tokens: TokenIssuer,
    private readonly tokenCache: TokenCache,
  ) {}

  /**
   * Enables SCIM and issues the organization's SCIM token (plaintext in this result only).
   * Enabling again rotates the token. Throws naming what is missing (plan, SAML).
   */
  async enable(ref: Reference) {
    const organization = await this.eligible(ref);
    await this.repository.setScimEnabled(scimDb(this.db()), organization.id, true);
    return this.issue(organization);
  }

  /** A new SCIM token; the previous one stops working at once. */
  async rotateToken(ref: Reference) {
    const organization = await this.eligible(ref);
    if (!organization.scim_enabled)
      throw new ApiError(409, `SCIM is not enabled for organization "${organization.slug}": call scim.enable first`);
    return this.issue(organization);
  }

  /** Turns SCIM off and revokes the SCIM token; provisioned members and teams stay. */
  async disable(ref: Reference): Promise<void> {
    const organization = await this.organizations.requireOrganization(ref);
    await this.repository.setScimEnabled(scimDb(this.db()), organization.id, false);
    await this.repository.revokeScimTokens(scimDb(this.db()), organization.id, null);
    this.tokenCache.invalidate();
  }

  private async eligible(ref: Reference): Promise<Organization> {
    const organization = await this.organizations.requireOrganization(ref);
    const missing = missingScimPrerequisites(organization);
    if (missing.length > 0) throw new ApiError(403, describeMissing(organization, missing));
    return organization;
  }

  private async issue(organization: Organization) {
    const token = await this.tokens.issue({
      kind: "scim",
      userId: null,
      organizationId: organization.id,
      name: "SCIM",
      scopes: [...SCIM_TOKEN_SCOPES],
      expiresAt: null,
    });
    await this.repository.revokeScimTokens(scimDb(this.db()), organization.id, Number(token.id));
    this.tokenCache.invalidate();
    return { ...token, path: `/api/0/organizations/${organization.slug}/scim/v2` };
  }
}
