import type { InjectionToken } from "tsyringe";
import type { EventSink } from "../issues/ingest/port.js";
import type { IngestService } from "./service.js";

export const IngestServiceToken: InjectionToken<IngestService> = Symbol("faultline.IngestService");
/** Where SDK and in-process events go: the issues plugin's sink (direct) or the ingest queue (queued). */
export const IngestSinkToken: InjectionToken<EventSink> = Symbol("faultline.IngestSink");
