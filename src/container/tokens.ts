import type { InjectionToken } from "tsyringe";
import type { Kysely } from "kysely";
import type { TokenCache as TokenCacheService } from "../auth/token-cache.js";
import type { Clock as ClockService } from "../clock.js";
import type { Database } from "../db/schema.js";
import type { EventBus as EventBusService } from "../events/event-bus.js";
import type { Logger as LoggerService } from "../logging/logger.js";
import type { Metrics as MetricsService } from "../observability/metrics.js";
import type { ResolvedOptions } from "../options.js";

/** The schema-scoped Kysely instance (available once the instance is ready). */
export const Db: InjectionToken<Kysely<Database>> = Symbol("faultline.Db");
export const Clock: InjectionToken<ClockService> = Symbol("faultline.Clock");
export const Logger: InjectionToken<LoggerService> = Symbol("faultline.Logger");
export const Options: InjectionToken<ResolvedOptions> = Symbol("faultline.Options");
export const EventBus: InjectionToken<EventBusService> = Symbol("faultline.EventBus");
/** Recently looked-up API tokens; call `invalidate()` after a commit that revokes or re-scopes any. */
export const TokenCache: InjectionToken<TokenCacheService> = Symbol("faultline.TokenCache");
/** Runs a background task as soon as possible (new work was committed); a no-op when this process runs no worker. */
export const WakeTask: InjectionToken<(taskId: string) => void> = Symbol("faultline.WakeTask");
/** The instance's Prometheus metrics: feature areas and host plugins register theirs here (`counter`, `gauge`, `histogram`). */
export const Metrics: InjectionToken<MetricsService> = Symbol("faultline.Metrics");
