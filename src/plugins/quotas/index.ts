import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, Logger } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { quotasApi } from "./api.js";
import { quotasMigrations } from "./migrations.js";
import { OrganizationQuotas } from "./service.js";
import { QuotaSettingsStore } from "./settings.js";
import { OrganizationQuotasToken, QuotaSettingsStoreToken } from "./tokens.js";
import { quotaWindowCleanupTask } from "./windows.js";

/** How long an organization's budgets stay cached per instance: a change made on another instance applies within this. */
const SETTINGS_CACHE_TTL_MS = 10_000;

/**
 * Per-organization quotas and spike protection (docs/filters-and-quotas.md): budgets the host
 * sets through `faultline.api.quotas`, spent by every instance together at accept, and the
 * `organization.throttled` event when an organization starts being refused.
 */
export const quotasPlugin = definePlugin({
  id: "quotas",
  dependencies: ["organizations"],
  migrations: quotasMigrations,
  register(container) {
    const db = () => container.resolve(Db);
    registerFactory(
      container,
      QuotaSettingsStoreToken,
      (c) => new QuotaSettingsStore(db, c.resolve(Clock), SETTINGS_CACHE_TTL_MS),
    );
    registerFactory(
      container,
      OrganizationQuotasToken,
      (c) =>
        new OrganizationQuotas(
          db,
          c.resolve(QuotaSettingsStoreToken),
          c.resolve(EventBus),
          c.resolve(Clock),
          c.resolve(Logger),
        ),
    );
  },
  tasks: [quotaWindowCleanupTask],
  api: (container) => ({ quotas: quotasApi(container) }),
});

export { OrganizationQuotasToken } from "./tokens.js";
export type { OrganizationQuotas, QuotaDecision, ThrottleReason } from "./service.js";
export type { QuotaSettings, QuotaSettingsInput } from "./settings.js";
export type * from "./domain-events.js";
export type { OrganizationQuotasTable, OrganizationQuotaWindowsTable } from "./tables.js";
