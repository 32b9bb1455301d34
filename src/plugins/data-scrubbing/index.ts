import { registerFactory } from "../../container/container.js";
import { Clock, Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import {
  defineOrganizationSettings,
  OrganizationSettingsContributorToken,
  ProjectSettingsContributorToken,
  storedProjectSettings,
} from "../organizations/index.js";
import { dataScrubbingMigrations } from "./migrations.js";
import { scrubbingSettingsBody, ScrubbingSettingsStore } from "./settings.js";
import { ScrubbingSettingsStoreToken, ScrubbingSettingsToken } from "./tokens.js";
import "./tables.js";

/** How long a project's settings stay cached: a change made on another instance applies within this time. */
const SETTINGS_CACHE_TTL_MS = 10_000;

/**
 * Sentry's server-side data scrubbing (docs/data-scrubbing.md): the projects' settings and the
 * organizations' defaults, shown on and changed through their details, and `scrubEvent`, which ingest applies to every event
 * before it is queued or stored.
 */
export const dataScrubbingPlugin = definePlugin({
  id: "data-scrubbing",
  dependencies: ["organizations"],
  migrations: dataScrubbingMigrations,
  register(container) {
    registerFactory(
      container,
      ScrubbingSettingsStoreToken,
      (c) => new ScrubbingSettingsStore(() => c.resolve(Db), c.resolve(Clock), SETTINGS_CACHE_TTL_MS),
    );
    registerFactory(container, ScrubbingSettingsToken, (c) => c.resolve(ScrubbingSettingsStoreToken));
    registerFactory(container, ProjectSettingsContributorToken, (c) =>
      storedProjectSettings("data-scrubbing", scrubbingSettingsBody, () => c.resolve(ScrubbingSettingsStoreToken)),
    );
    // Sentry's organization-level settings: the same fields on the organization's detail and PUT.
    registerFactory(container, OrganizationSettingsContributorToken, (c) => {
      const store = () => c.resolve(ScrubbingSettingsStoreToken);
      return defineOrganizationSettings({
        id: "data-scrubbing",
        body: scrubbingSettingsBody,
        load: async (db, organizations) =>
          store().loadOrganizations(
            db,
            organizations.map((organization) => organization.id),
          ),
        save: async (scope, organization, values) => {
          await store().saveOrganization(scope.trx, organization.id, values);
          scope.afterCommit(() => store().forgetAll());
        },
      });
    });
  },
});

export { ScrubbingSettingsToken } from "./tokens.js";
export { scrubEvent, type ScrubbingSettings } from "./scrub.js";
