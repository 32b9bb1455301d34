import { registerFactory } from "../../container/container.js";
import { Clock, Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { inboundFiltersApi } from "./api.js";
import { inboundFiltersMigrations } from "./migrations.js";
import { ProjectSettingsContributorToken } from "../organizations/index.js";
import { filterProjectOptions } from "./project-options.js";
import { inboundFilterEndpoints } from "./routes.js";
import { InboundFilterService } from "./service.js";
import { InboundFilterServiceToken } from "./tokens.js";

/** How long a project's filters stay cached per instance: a change made on another instance applies within this. */
const SETTINGS_CACHE_TTL_MS = 10_000;

/**
 * Sentry's inbound data filters (docs/filters-and-quotas.md): per project, events from browser
 * extensions, localhost, legacy browsers and web crawlers, and events matching error-message or
 * release patterns, are refused at accept and counted as `filtered`.
 */
export const inboundFiltersPlugin = definePlugin({
  id: "inbound-filters",
  dependencies: ["organizations"],
  migrations: inboundFiltersMigrations,
  register(container) {
    registerFactory(
      container,
      InboundFilterServiceToken,
      (c) => new InboundFilterService(() => c.resolve(Db), c.resolve(Clock), SETTINGS_CACHE_TTL_MS),
    );
    registerFactory(container, ProjectSettingsContributorToken, (c) =>
      filterProjectOptions(() => c.resolve(InboundFilterServiceToken)),
    );
  },
  endpoints: inboundFilterEndpoints,
  api: (container) => ({ inboundFilters: inboundFiltersApi(container) }),
});

export { InboundFilterServiceToken } from "./tokens.js";
export type { InboundFilterService, StoredFilters } from "./service.js";
export { filterEvent, type FilterReason, type InboundFilterSettings, NO_FILTERS } from "./filter.js";
export type { FilterPatterns } from "./api.js";
export type { InboundFiltersTable } from "./tables.js";
