import "reflect-metadata";
// Modules that add first-party events to DomainEventMap and tables to Database (declaration
// merging): the core's, and the plugins' public entries, which load their own. Imported here so the
// published declarations load them for every consumer: a host plugin's `on` handlers are typed,
// and `Database` has every table.
import "./delivery/engine.js";
import "./plugins/alerts/index.js";
import "./plugins/event-store/index.js";
import "./plugins/external-issues/index.js";
import "./plugins/inbound-filters/index.js";
import "./plugins/ingest/index.js";
import "./plugins/installations/index.js";
import "./plugins/issues/index.js";
import "./plugins/quotas/index.js";
import "./plugins/scim/index.js";
import "./plugins/service-hooks/index.js";
import { buildFaultline, type Faultline } from "./faultline.js";
import type { FaultlineOptions } from "./options.js";
import type { ExtendedApiOf } from "./plugin/api-of.js";
import type { FaultlinePlugin } from "./plugin/plugin.js";
import { firstPartyPlugins } from "./plugins/index.js";

/**
 * The in-process API of an instance with the first-party plugins and the host's plugins `P`
 * (admin operations, and one function per endpoint, typed from the plugins' declarations).
 */
export type FaultlineApi<P extends readonly FaultlinePlugin[] = []> = ExtendedApiOf<typeof firstPartyPlugins, P>;

/**
 * Creates an embedded Faultline. Construction validates the options (a wrong one throws,
 * naming it) and opens nothing; the database is opened, migrated and the plugins initialised
 * on the first request, API call or `ready()`.
 *
 * @example
 * const faultline = createFaultline({ database: process.env.DATABASE_URL });
 * app.use("/faultline", toExpressHandler(faultline));
 */
export function createFaultline<const P extends readonly FaultlinePlugin[] = []>(
  options: FaultlineOptions & { plugins?: P } = {},
): Faultline<FaultlineApi<P>> {
  // The host's plugins reach `buildFaultline` in `options.plugins`, untyped there: their part of `api` is typed here.
  return buildFaultline(options, firstPartyPlugins) as unknown as Faultline<FaultlineApi<P>>;
}

export type { Faultline, ApiOf } from "./faultline.js";
export type { FaultlineOptions, AuthenticateHook } from "./options.js";
export type { FaultlineHandler } from "./http/pipeline.js";
export type { HandlerOptions } from "./http/handler-options.js";
export {
  type DatabaseInput,
  type DatabaseSource,
  DEFAULT_DATA_DIR,
  type PGliteLike,
  type PgPoolLike,
} from "./db/connect.js";
export type { Database } from "./db/schema.js";
export type { MigrationReport, MigrationStatus } from "./db/migrator.js";
export type { SchemaMigration } from "./db/migrations/types.js";
export type { Logger } from "./logging/logger.js";
export type { Metrics, MetricsOptions } from "./observability/metrics.js";
export type { Health, HealthReport } from "./observability/health.js";
export type { CheckResult, ReadinessCheck, ReadinessContext } from "./observability/readiness.js";
export type { Clock } from "./clock.js";
export type { Principal, PrincipalInput } from "./auth/principal.js";
export { SCOPES, type Scope } from "./auth/scopes.js";
export {
  definePlugin,
  type FaultlinePlugin,
  type PluginHooks,
  type ErrorRenderer,
  type HookContext,
  type PluginEventHandler,
  type PluginInitContext,
} from "./plugin/plugin.js";
export type { TaskDefinition, TaskContext } from "./worker/task.js";
export { defineEndpoint, json, type EndpointDefinition, type EndpointContext, type Reply } from "./http/endpoint.js";
export { ApiError } from "./http/errors.js";
export { DatabaseUnavailableError, isConnectionFailure, MigrationsPendingError } from "./db/errors.js";
export { DataDirLockedError, type DataDirHolder } from "./db/data-dir-lock.js";
export { keysetPage, linkHeader, type Page, type KeysetBound } from "./http/pagination.js";
export { runInTransaction, type TransactionScope } from "./db/transaction.js";
export type { Actor, DomainEvent, DomainEventMap, DomainEventName } from "./events/event-bus.js";
export { registerFactory, registerValue } from "./container/container.js";
export * as tokens from "./container/tokens.js";
/** Extension point of event storage: rewrite an event's payload before grouping (docs/plugins.md). */
export {
  EventPayloadProcessorToken,
  type EventPayloadProcessor,
  type ProjectRef,
} from "./plugins/event-store/index.js";
/** Rows of your own keyed by issue id follow issue merges and unmerges (docs/plugins.md, "Merging issues"). */
export {
  IssueMergeParticipantToken,
  type IssueMergeParticipant,
  type IssueMergeChange,
  type IssueUnmergeChange,
} from "./plugins/issues/index.js";
/** Where uploaded source maps live: replace it to keep blobs in an object store (docs/releases-and-source-maps.md). */
export { ArtifactStoreToken, type ArtifactStore, type StoreContext } from "./plugins/releases/index.js";
/** Notification channels: add your own (push, an in-app inbox) beside email and chat (docs/notifications.md). */
export {
  NotifierRegistryToken,
  type Notifier,
  type Notification,
  type NotificationTarget,
  type UserRecipient,
  type ChatTarget,
  type OutgoingMessage,
  type RenderedMessage,
} from "./plugins/notifications/index.js";
export type { SendResult } from "./delivery/sender.js";
