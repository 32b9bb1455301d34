import type { InjectionToken } from "tsyringe";
import type { EventProcessor } from "./processor.js";
import type { GroupingRulesStore } from "../grouping-rules/store.js";

/** The PostgreSQL store's write half (group commit): the event store's own, resolved to drain it on close. */
export const EventProcessorToken: InjectionToken<EventProcessor> = Symbol("faultline.EventProcessor");

/** The projects' grouping rules, parsed and cached (docs/grouping.md). */
export const GroupingRulesStoreToken: InjectionToken<GroupingRulesStore> = Symbol("faultline.GroupingRulesStore");
