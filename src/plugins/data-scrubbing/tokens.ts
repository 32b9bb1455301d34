import type { InjectionToken } from "tsyringe";
import type { ScrubbingSettingsStore } from "./settings.js";

/** The projects' scrubbing settings, cached per project (ingest reads them for every event). */
export const ScrubbingSettingsToken: InjectionToken<Pick<ScrubbingSettingsStore, "forProject">> =
  Symbol("faultline.ScrubbingSettings");
/** The store behind it (this plugin's own use: loading, saving, forgetting). */
export const ScrubbingSettingsStoreToken: InjectionToken<ScrubbingSettingsStore> = Symbol(
  "faultline.ScrubbingSettingsStore",
);
