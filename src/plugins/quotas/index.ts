import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, Logger } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { NotificationServiceToken } from "../notifications/index.js";
import { quotasApi } from "./api.js";
import { notifyThrottled } from "./notify.js";
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
 * `organization.throttled` event when an organization starts being refused, which its owners and
 * managers are told of (docs/notifications.md).
 */
export const quotasPlugin = definePlugin({
  id: "quotas",
  dependencies: ["organizations", "notifications"],
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
  on: {
    "organization.throttled": (event, scope, { container }) =>
      notifyThrottled(event, scope, container.resolve(NotificationServiceToken)),
  },
  api: (container) => ({ quotas: quotasApi(container) }),
});

export { OrganizationQuotasToken } from "./tokens.js";
export type { OrganizationQuotas, QuotaDecision, ThrottleReason } from "./service.js";
export type { QuotaSettings, QuotaSettingsInput } from "./settings.js";
export type * from "./domain-events.js";
export type { OrganizationQuotasTable, OrganizationQuotaWindowsTable } from "./tables.js";
