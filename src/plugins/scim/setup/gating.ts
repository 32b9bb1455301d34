import type { Organization } from "../../../db/schema.js";
import { scimError } from "../errors.js";

const SCIM_PLANS: readonly string[] = ["business", "enterprise"];

/**
 * What an organization lacks to use SCIM at all (docs/scim.md, "1. Enable SCIM for an
 * organization"), in words for an error message.
 */
export function missingScimPrerequisites(organization: Organization): string[] {
  const missing: string[] = [];
  if (!SCIM_PLANS.includes(organization.plan))
    missing.push(`the business or enterprise plan (it is on "${organization.plan}")`);
  if (!organization.saml_configured) missing.push("a configured SAML identity provider");
  return missing;
}

const sentence = (parts: string[]) =>
  parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;

export function describeMissing(organization: Organization, missing: string[]): string {
  return `SCIM is not available for organization "${organization.slug}": it needs ${sentence(missing)}`;
}

/** Every SCIM route: 403 naming each missing condition (plan, SAML, SCIM enabled). */
export function assertScimAvailable(organization: Organization): void {
  const missing = missingScimPrerequisites(organization);
  if (!organization.scim_enabled) missing.push("SCIM to be enabled");
  if (missing.length > 0) throw scimError(403, null, describeMissing(organization, missing));
}
