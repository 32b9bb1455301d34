import type { Span } from "@opentelemetry/api";
import type { Kysely } from "kysely";
import type { DependencyContainer } from "tsyringe";
import type { Clock } from "../clock.js";
import { TokenCache as TokenCacheToken } from "../container/tokens.js";
import type { Database } from "../db/schema.js";
import { HANDLER_LOGGER, type Logger, RequestLogger } from "../logging/logger.js";
import type { Metrics } from "../observability/metrics.js";
import { inActiveSpan } from "../observability/tracing.js";
import type { ResolvedOptions } from "../options.js";
import type { Composition } from "../plugin/compose.js";
import type { ErrorRenderer, HookContext, PluginHooks } from "../plugin/plugin.js";
import type { TokenCache } from "../auth/token-cache.js";
import type { Histogram } from "prom-client";
import type { Reply } from "./endpoint.js";
import type { HandlerOptions } from "./handler-options.js";
import { requestIdFor } from "./request-id.js";
import { replyToResponse } from "./responses.js";
import { authenticateFor, authorizeFor } from "./stages/access.js";
import { BodyReader, queryObject, validated } from "./stages/input.js";
import { checkRouteInput, matchRoute, stripBasePath, trimSlash } from "./stages/match.js";
import { describeSpan, errorReply, finish, UNMATCHED } from "./stages/render.js";
import { isWireReply, WIRE_HANDLER, type WireHandler, type WireReply, wireToResponse } from "./wire.js";
import { EARLY_REFUSAL, type EarlyRefusalCheck, earlyRefusalCheck } from "./early-refusal.js";

/**
 * Web-standard `Request → Response` handler every adapter calls. Node adapters use the
 * {@link WireHandler} it carries under {@link WIRE_HANDLER} when there is one (the same pipeline,
 * JSON replies without a `Response` object).
 */
export interface FaultlineHandler {
  (request: Request, options?: HandlerOptions): Promise<Response>;
  readonly [WIRE_HANDLER]?: WireHandler;
  /** The instance's logger, for what an adapter logs outside the pipeline (an error writing a reply). */
  readonly [HANDLER_LOGGER]?: Logger;
  /** Refusals decided before the body is read (early-refusal.ts); Node adapters ask it first. */
  readonly [EARLY_REFUSAL]?: EarlyRefusalCheck;
}

export interface PipelineDeps {
  composition: Composition;
  container: DependencyContainer;
  options: ResolvedOptions;
  logger: Logger;
  clock: Clock;
  metrics: Metrics;
  /** Resolves once the instance is initialised (lazy init). */
  ready(): Promise<Kysely<Database>>;
}

/** Methods named as they are in metrics and spans; anything else is `_OTHER` (a client must not mint label values). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** What routing learnt about a request, for its metrics and span. */
interface Routed {
  template: string;
}

/** One request as the stages see it. */
interface IncomingRequest {
  request: Request;
  url: URL;
  /** The path below the mount prefix; null when the request is not under it. */
  path: string | null;
  basePath: string;
  requestId: string;
  logger: Logger;
  clientAddress: string | null;
}

/**
 * Builds the web-standard `Request → Response` handler every adapter calls. A request goes
 * through named stages (src/http/stages/): match → authenticate → authorize → input → the
 * plugins' hooks and the handler → render; any stage's error becomes the reply (render.ts).
 */
export function createPipeline(deps: PipelineDeps): FaultlineHandler {
  const pipeline = new RequestPipeline(deps);
  const serveWire: WireHandler = (request, handlerOptions) => pipeline.serve(request, handlerOptions);
  const handle = async (request: Request, handlerOptions?: HandlerOptions): Promise<Response> => {
    const reply = await serveWire(request, handlerOptions);
    return isWireReply(reply) ? wireToResponse(reply) : reply;
  };
  return Object.assign(handle, {
    [WIRE_HANDLER]: serveWire,
    [HANDLER_LOGGER]: deps.logger,
    [EARLY_REFUSAL]: earlyRefusalCheck(deps.container),
  });
}

/** What the stages share across requests, composed once per instance. */
class RequestPipeline {
  readonly #hooks: PluginHooks[];
  /** Known at composition: without any `after` hook, replies stay plain data until the adapter writes them. */
  readonly #anyAfterHook: boolean;
  readonly #renderers: ErrorRenderer[];
  readonly #tokenCache: TokenCache;
  readonly #bodies: BodyReader;
  readonly #latency: Histogram<"method" | "route" | "status">;

  constructor(private readonly deps: PipelineDeps) {
    this.#hooks = deps.composition.plugins.flatMap((plugin) => (plugin.hooks ? [plugin.hooks] : []));
    this.#anyAfterHook = this.#hooks.some((hook) => hook.after !== undefined);
    this.#renderers = deps.composition.plugins.flatMap((plugin) =>
      plugin.errorRenderer ? [plugin.errorRenderer] : [],
    );
    this.#tokenCache = deps.container.resolve(TokenCacheToken);
    this.#bodies = new BodyReader(deps.options.limits, deps.logger);
    this.#latency = deps.metrics.histogram(
      "http_request_duration_seconds",
      "Time to answer an HTTP request, by route template",
      ["method", "route", "status"],
    );
  }

  serve(request: Request, handlerOptions: HandlerOptions | undefined): Promise<Response | WireReply> {
    const method = KNOWN_METHODS.has(request.method) ? request.method : "_OTHER";
    // A server span per request, child of the host's own when it traces (a no-op without an SDK).
    return inActiveSpan(method, { kind: "server", attributes: { "http.request.method": method } }, (span) =>
      this.#serve(request, handlerOptions, method, span).finally(() => span.end()),
    );
  }

  async #serve(
    request: Request,
    handlerOptions: HandlerOptions | undefined,
    method: string,
    span: Span,
  ): Promise<Response | WireReply> {
    const started = performance.now();
    const url = new URL(request.url);
    const basePath = trimSlash(handlerOptions?.basePath ?? this.deps.options.basePath);
    const requestId = requestIdFor(request);
    const info: IncomingRequest = {
      request,
      url,
      path: stripBasePath(url.pathname, basePath),
      basePath,
      requestId,
      logger: new RequestLogger(this.deps.logger, requestId),
      clientAddress: handlerOptions?.clientAddress ?? null,
    };
    const routed: Routed = { template: UNMATCHED };
    let reply: Reply | Response;
    try {
      reply = await this.#route(info, routed);
    } catch (error) {
      reply = errorReply(error, info.path ?? url.pathname, requestId, info.logger, this.#renderers);
    }
    const response = finish(reply, requestId, request.method === "HEAD");
    const seconds = (performance.now() - started) / 1000;
    this.#latency.observe({ method, route: routed.template, status: response.status }, seconds);
    if (span.isRecording()) describeSpan(span, method, routed.template, url, response.status, requestId);
    info.logger.debug(
      { method: request.method, path: url.pathname, status: response.status, ms: Math.round(seconds * 1000) },
      "faultline request",
    );
    return response;
  }

  async #route(info: IncomingRequest, routed: Routed): Promise<Reply | Response> {
    const { deps } = this;
    const { request, url } = info;
    const matched = matchRoute(deps.composition.router, request.method, info.path, url, deps.options.limits.urlLength);
    routed.template = matched.endpoint.path;
    checkRouteInput(matched, url);
    const db = await deps.ready();
    const { endpoint } = matched;
    const principal = await authenticateFor(endpoint, request, {
      db,
      clock: deps.clock,
      hook: deps.options.authenticate,
      cache: this.#tokenCache,
    });
    const { organization, scopes } = await authorizeFor(endpoint, principal, matched.params, db);
    const ctx = {
      endpoint,
      request,
      url,
      basePath: info.basePath,
      requestId: info.requestId,
      clientAddress: info.clientAddress,
      principal,
      organization,
      scopes,
      params: validated(endpoint.params, matched.params),
      query: validated(endpoint.query, queryObject(url.searchParams)),
      ...(await this.#bodies.read(endpoint, request)),
      container: deps.container,
      logger: info.logger,
    } as HookContext;
    return handleWithHooks(this.#hooks, this.#anyAfterHook, ctx);
  }
}

/**
 * The plugins' `before` hooks (one may answer instead), the handler, then the `after` hooks. The
 * `after` hooks take and give a Response; without any, the reply stays plain data until the
 * adapter writes it.
 */
async function handleWithHooks(
  hooks: readonly PluginHooks[],
  anyAfterHook: boolean,
  ctx: HookContext,
): Promise<Reply | Response> {
  for (const hook of hooks) {
    const early = await hook.before?.(ctx);
    if (early) return early;
  }
  const reply = await ctx.endpoint.handler(ctx);
  if (!anyAfterHook) return reply;
  let response = replyToResponse(reply);
  for (const hook of hooks) response = (await hook.after?.(ctx, response)) ?? response;
  return response;
}
