import type { InjectionToken } from "tsyringe";
import type { EventProcessor } from "./processor.js";

/** The PostgreSQL store's write half (group commit): the event store's own, resolved to drain it on close. */
export const EventProcessorToken: InjectionToken<EventProcessor> = Symbol("faultline.EventProcessor");
