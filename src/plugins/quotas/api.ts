import type { DependencyContainer } from "tsyringe";
import { parseOrThrow } from "../../http/validate.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { type QuotaSettings, type QuotaSettingsInput, quotaSettingsInput } from "./settings.js";
import { QuotaSettingsStoreToken } from "./tokens.js";

/** `faultline.api.quotas`: the host sets each organization's budgets (by plan, say). */
export function quotasApi(container: DependencyContainer) {
  const organizationId = async (organization: string | number) =>
    (await container.resolve(OrganizationServiceToken).requireOrganization(organization)).id;
  return {
    /** The organization's budgets; every field `null` when it is unlimited. */
    get: async (organization: string | number): Promise<QuotaSettings> =>
      container.resolve(QuotaSettingsStoreToken).read(await organizationId(organization)),
    /**
     * Replaces the organization's budgets: a field left out or `null` is no limit. Applies at once
     * on this instance, within 10 seconds on others.
     */
    set: async (organization: string | number, settings: QuotaSettingsInput): Promise<QuotaSettings> => {
      const parsed = parseOrThrow(quotaSettingsInput, settings);
      await container.resolve(QuotaSettingsStoreToken).write(await organizationId(organization), parsed);
      return parsed;
    },
  };
}
