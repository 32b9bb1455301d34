import type { InjectionToken } from "tsyringe";
import type { IngestService } from "./service.js";

export const IngestServiceToken: InjectionToken<IngestService> = Symbol("faultline.IngestService");
