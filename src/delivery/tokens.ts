import type { InjectionToken } from "tsyringe";
import type { DestinationRegistry } from "./destinations.js";
import type { DeliveryEngine } from "./engine.js";
import type { Outbox } from "./outbox.js";

export const OutboxToken: InjectionToken<Outbox> = Symbol("faultline.Outbox");
export const DeliveryEngineToken: InjectionToken<DeliveryEngine> = Symbol("faultline.DeliveryEngine");
export const DestinationRegistryToken: InjectionToken<DestinationRegistry> = Symbol("faultline.DestinationRegistry");
