import type { InjectionToken } from "tsyringe";
import type { InboundFilterService } from "./service.js";

/** Projects' inbound filters: the settings ingest applies (cached per project), and their changes. */
export const InboundFilterServiceToken: InjectionToken<InboundFilterService> = Symbol("faultline.InboundFilterService");
