import type { DependencyContainer } from "tsyringe";
import type { SchemaMigration } from "../db/migrations/types.js";
import type { DomainEvent, DomainEventName } from "../events/event-bus.js";
import type { TransactionScope } from "../db/transaction.js";
import type { AnyEndpoint, EndpointContext, Reply } from "../http/endpoint.js";
import type { ApiError } from "../http/errors.js";
import type { ReadinessCheck } from "../observability/readiness.js";
import type { TaskDefinition } from "../worker/task.js";

/** The context of a matched request, as hooks see it. */
export type HookContext = EndpointContext<string, unknown, unknown, unknown> & { endpoint: AnyEndpoint };

export interface PluginHooks {
  /** Runs after authentication and validation, before the handler; a Response short-circuits. */
  before?(ctx: HookContext): Promise<Response | void> | Response | void;
  /** Runs after the handler; may replace the Response. */
  after?(ctx: HookContext, response: Response): Promise<Response | void> | Response | void;
}

/**
 * Renders errors for the paths of one protocol (SCIM errors on SCIM paths, for instance): a
 * `Response`, or a reply rendered as JSON like a handler's.
 */
export interface ErrorRenderer {
  matches(path: string): boolean;
  render(error: ApiError, requestId: string): Response | Reply;
}

export interface PluginInitContext {
  container: DependencyContainer;
}

/** A domain-event subscriber: runs inside the emitting transaction, with the instance's container. */
export type PluginEventHandler<N extends DomainEventName> = (
  event: DomainEvent<N>,
  scope: TransactionScope,
  ctx: PluginInitContext,
) => Promise<void> | void;

export type PluginEventSubscriptions = { [N in DomainEventName]?: PluginEventHandler<N> };

/**
 * A feature area, first-party or the host's own. Composition throws on a duplicate id or a
 * path/method registered twice, naming both plugins.
 *
 * `TApi` is what `api()` returns and `TEndpoints` what `endpoints` lists: together they type the
 * plugin's part of `faultline.api` (see `ApiOf`).
 */
export interface FaultlinePlugin<
  TApi extends object = object,
  TEndpoints extends readonly AnyEndpoint[] = readonly AnyEndpoint[],
> {
  /** Unique, stable id (`installations`, `acme-audit`). */
  id: string;
  /** Ids of plugins that must be present (and are initialised first). */
  dependencies?: readonly string[];
  /** Register services in the instance's container, with factories (no decorator metadata). */
  register?(container: DependencyContainer): void;
  /** I/O at start-up, after migrations; runs in dependency order. */
  init?(ctx: PluginInitContext): Promise<void> | void;
  /** HTTP routes; each is also `faultline.api.<area>.<operation>` after its operation id. */
  endpoints?: TEndpoints;
  /**
   * Path segments accepted as another spelling of one of this plugin's static segments, e.g.
   * `{"sentry-apps": "svc-apps"}`: the same endpoints answer under both (OpenAPI lists the first).
   */
  pathAliases?: Readonly<Record<string, string>>;
  hooks?: PluginHooks;
  /** Domain-event subscriptions; they run inside the emitting transaction. */
  on?: PluginEventSubscriptions;
  /** The plugin's own migrations, tracked in its own migration table (`faultline_migration_<id>`). */
  migrations?: readonly SchemaMigration[];
  /**
   * Faultline's own plugins only: their shares of the original migrations (0001–0016), which
   * each created several areas' tables at once. Kept under their original names in the core's
   * migration table and joined with the other owners' shares of the same name, so they run as
   * they always did and installs that ran them find them applied. A new table goes in
   * `migrations`; composition refuses this field on a host's plugin.
   */
  coreLedgerMigrations?: readonly SchemaMigration[];
  errorRenderer?: ErrorRenderer;
  /** Background work run by the instance's worker. */
  tasks?: readonly TaskDefinition[];
  /** Checks `faultline.health.ready` runs besides the core's (database, migrations, worker). */
  readiness?: readonly ReadinessCheck[];
  /** In-process API namespaces this plugin adds to `faultline.api`. */
  api?(container: DependencyContainer): TApi;
  /** Release what `init` opened; runs before the database closes, in reverse dependency order. */
  close?(ctx: PluginInitContext): Promise<void> | void;
}

/**
 * Declares a plugin; the identity function keeps the types of its API and of each endpoint it
 * lists (a tuple, `const`), which is all `faultline.api` is typed from. No endpoints: none typed.
 */
export function definePlugin<
  TApi extends object = object,
  const TEndpoints extends readonly AnyEndpoint[] = readonly [],
>(plugin: FaultlinePlugin<TApi, TEndpoints>): FaultlinePlugin<TApi, TEndpoints>;
/**
 * With the API type given explicitly (`definePlugin<MyApi>({ … })`): TypeScript then infers no
 * other type argument, so the endpoints are not typed in `faultline.api` (still callable there).
 */
export function definePlugin<TApi extends object>(plugin: FaultlinePlugin<TApi>): FaultlinePlugin<TApi>;
export function definePlugin(plugin: FaultlinePlugin): FaultlinePlugin {
  return plugin;
}
