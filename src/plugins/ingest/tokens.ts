import type { InjectionToken } from "tsyringe";
import type { EventSink } from "../event-store/index.js";
import type { OutcomeRecorder } from "./outcomes/recorder.js";
import type { IngestWorkerPool } from "./isolation/pool.js";
import type { EventLoopDelayMonitor } from "./limits/overload.js";
import type { ProjectKeyResolver } from "./accept/project-keys.js";
import type { IngestService } from "./accept/service.js";

export const IngestServiceToken: InjectionToken<IngestService> = Symbol("faultline.IngestService");
/** Where SDK and in-process events go: the issues plugin's sink (direct) or the ingest queue (queued). */
export const IngestSinkToken: InjectionToken<EventSink> = Symbol("faultline.IngestSink");
/** Counts what became of sent events (accepted, rate limited, invalid, discarded by the SDK). */
export const OutcomeRecorderToken: InjectionToken<OutcomeRecorder> = Symbol("faultline.OutcomeRecorder");
/** This instance's DSN key cache: forgets keys when the organizations plugin announces a change. */
export const ProjectKeyResolverToken: InjectionToken<ProjectKeyResolver> = Symbol("faultline.ProjectKeyResolver");
/** The event-loop delay monitor behind load shedding (`ingest.shedAtEventLoopDelayMs`); resolved only when that is set. */
export const OverloadMonitorToken: InjectionToken<EventLoopDelayMonitor> = Symbol("faultline.OverloadMonitor");
/** The ingest worker threads of `ingest.isolation: "threads"`; resolved only when that applies. */
export const IngestWorkerPoolToken: InjectionToken<IngestWorkerPool> = Symbol("faultline.IngestWorkerPool");
