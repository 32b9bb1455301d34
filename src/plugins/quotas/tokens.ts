import type { InjectionToken } from "tsyringe";
import type { OrganizationQuotas } from "./service.js";
import type { QuotaSettingsStore } from "./settings.js";

/** Per-organization budgets and spike protection, consulted by ingest at accept. */
export const OrganizationQuotasToken: InjectionToken<OrganizationQuotas> = Symbol("faultline.OrganizationQuotas");
/** Organizations' budgets as stored (cached per instance). */
export const QuotaSettingsStoreToken: InjectionToken<QuotaSettingsStore> = Symbol("faultline.QuotaSettingsStore");
