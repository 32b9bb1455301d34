import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Kysely } from "kysely";
import type { DependencyContainer } from "tsyringe";
import type { z } from "zod";
import { authenticateRequest, unauthenticated } from "../auth/authenticate.js";
import { authorizeOrganization } from "../auth/organization-access.js";
import type { Principal } from "../auth/principal.js";
import type { Scope } from "../auth/scopes.js";
import type { Clock } from "../clock.js";
import { TokenCache as TokenCacheToken } from "../container/tokens.js";
import type { Database, Organization } from "../db/schema.js";
import { isConnectionFailure, isDataException, MigrationsPendingError } from "../db/errors.js";
import { HANDLER_LOGGER, type Logger, RequestLogger } from "../logging/logger.js";
import type { Metrics } from "../observability/metrics.js";
import type { ResolvedOptions } from "../options.js";
import type { Composition } from "../plugin/compose.js";
import type { HookContext } from "../plugin/plugin.js";
import { bodyConsumed, bodyTooLarge, type ConsumedBody, consumedBodyOf, parseJsonBody, readBodyBytes } from "./body.js";
import { type AnyEndpoint, ORGANIZATION_PARAM } from "./endpoint.js";
import { ApiError, NOT_FOUND_DETAIL } from "./errors.js";
import type { HandlerOptions } from "./handler-options.js";
import { checkJsonBody, checkPathParams, checkQuery, checkUrlLength } from "./input-policy.js";
import { requestIdFor } from "./request-id.js";
import { parseOrThrow } from "./validate.js";
import { replyToResponse, sentryErrorReply } from "./responses.js";
import { isWireReply, WIRE_HANDLER, type WireHandler, type WireReply, wireReplyOf, wireToResponse } from "./wire.js";
import type { Reply } from "./endpoint.js";

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

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Methods named as they are in metrics and spans; anything else is `_OTHER` (a client must not mint label values). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The route label of a request that matched no route. */
const UNMATCHED = "unmatched";

/** What routing learnt about a request, for its metrics and span. */
interface Routed {
  template: string;
}

/** Builds the web-standard `Request → Response` handler every adapter calls. */
export function createPipeline(deps: PipelineDeps): FaultlineHandler {
  const hooks = deps.composition.plugins.flatMap((plugin) => (plugin.hooks ? [plugin.hooks] : []));
  // `after` hooks take and give a Response; without any, replies stay plain data until the adapter writes them.
  const anyAfterHook = hooks.some((hook) => hook.after !== undefined);
  const tokenCache = deps.container.resolve(TokenCacheToken);
  const renderers = deps.composition.plugins.flatMap((plugin) => (plugin.errorRenderer ? [plugin.errorRenderer] : []));
  // One warning per instance for a body consumed before Faultline: a setup fault, not a per-request one.
  let warnedConsumed = false;
  const tracer = trace.getTracer("faultline");
  const latency = deps.metrics.histogram("http_request_duration_seconds", "Time to answer an HTTP request, by route template", ["method", "route", "status"]);

  const serveWire: WireHandler = (request, handlerOptions) => {
    const method = KNOWN_METHODS.has(request.method) ? request.method : "_OTHER";
    // A server span per request, child of the host's own when it traces (a no-op without an SDK).
    return tracer.startActiveSpan(method, { kind: SpanKind.SERVER, attributes: { "http.request.method": method } }, (span) =>
      serve(request, handlerOptions, method, span).finally(() => span.end()),
    );
  };
  const handle = async (request: Request, handlerOptions?: HandlerOptions): Promise<Response> => {
    const reply = await serveWire(request, handlerOptions);
    return isWireReply(reply) ? wireToResponse(reply) : reply;
  };
  return Object.assign(handle, { [WIRE_HANDLER]: serveWire, [HANDLER_LOGGER]: deps.logger });

  async function serve(request: Request, handlerOptions: HandlerOptions | undefined, method: string, span: Span): Promise<Response | WireReply> {
    const started = performance.now();
    const requestId = requestIdFor(request);
    const logger = new RequestLogger(deps.logger, requestId);
    const url = new URL(request.url);
    const basePath = trimSlash(handlerOptions?.basePath ?? deps.options.basePath);
    const path = stripBasePath(url.pathname, basePath);
    const routed: Routed = { template: UNMATCHED };
    let reply: Reply | Response;
    try {
      reply = await route(request, url, path, basePath, requestId, logger, routed, handlerOptions?.clientAddress ?? null);
    } catch (error) {
      reply = renderError(error, path ?? url.pathname, requestId, logger);
    }
    const response = finish(reply, requestId, request.method === "HEAD");
    const seconds = (performance.now() - started) / 1000;
    latency.observe({ method, route: routed.template, status: response.status }, seconds);
    if (span.isRecording()) describeSpan(span, method, routed.template, url, response.status, requestId);
    logger.debug({ method: request.method, path: url.pathname, status: response.status, ms: Math.round(seconds * 1000) }, "faultline request");
    return response;
  }

  async function route(request: Request, url: URL, path: string | null, basePath: string, requestId: string, logger: Logger, routed: Routed, clientAddress: string | null): Promise<Reply | Response> {
    if (path === null) throw new ApiError(404, NOT_FOUND_DETAIL);
    checkUrlLength(url, deps.options.limits.urlLength);
    const match = deps.composition.router.match(request.method, path);
    if (match.kind === "not-found") throw new ApiError(404, NOT_FOUND_DETAIL);
    if (match.kind === "method-not-allowed") {
      throw new ApiError(405, `Method "${request.method}" not allowed.`, {}, { Allow: match.allow.join(", ") });
    }
    // The input policy (input-policy.ts) before anything reads the database with these values.
    routed.template = match.value.endpoint.path;
    checkPathParams(match.params);
    checkQuery(url.searchParams);
    const db = await deps.ready();
    const { endpoint } = match.value;
    const principal = await authenticate(endpoint, request, db);
    const { organization, scopes } = await authorize(endpoint, principal, match.params, db);
    const ctx: HookContext = {
      endpoint,
      request,
      url,
      basePath,
      requestId,
      clientAddress,
      principal,
      organization,
      scopes,
      params: validate(endpoint.params, match.params),
      query: validate(endpoint.query, queryObject(url.searchParams)),
      ...(await readBody(endpoint, request)),
      container: deps.container,
      logger,
    } as HookContext;
    for (const hook of hooks) {
      const early = await hook.before?.(ctx);
      if (early) return early;
    }
    const reply = await endpoint.handler(ctx);
    if (!anyAfterHook) return reply;
    let response = replyToResponse(reply);
    for (const hook of hooks) response = (await hook.after?.(ctx, response)) ?? response;
    return response;
  }

  async function authenticate(endpoint: AnyEndpoint, request: Request, db: Kysely<Database>): Promise<Principal | null> {
    if (endpoint.auth === "none") return null;
    const principal = await authenticateRequest(request, { db, clock: deps.clock, hook: deps.options.authenticate, cache: tokenCache });
    if (!principal && endpoint.auth === "optional") return null;
    if (!principal) throw unauthenticated();
    // A SCIM token exists for the identity provider: it opens SCIM endpoints and nothing else.
    // A valid token used where it has no business: 403 (authenticated, not allowed), before the
    // organization is looked at, so the answer is the same for every organization.
    if (principal.kind === "scim" && !endpoint.path.includes("/scim/v2/")) throw new ApiError(403, "SCIM tokens only open SCIM endpoints (/api/0/organizations/{organization}/scim/v2/…)");
    if (endpoint.auth === "user" && principal.userId === null) {
      throw new ApiError(403, "This endpoint requires a user token");
    }
    return principal;
  }

  /** Organization first (404 hides existence), then scopes (403). */
  async function authorize(
    endpoint: AnyEndpoint,
    principal: Principal | null,
    params: Record<string, string>,
    db: Kysely<Database>,
  ): Promise<{ organization: Organization | null; scopes: ReadonlySet<Scope> }> {
    if (!principal) return { organization: null, scopes: new Set() };
    const idOrSlug = params[ORGANIZATION_PARAM];
    const access = idOrSlug === undefined ? { organization: null, scopes: principal.scopes } : await authorizeOrganization(db, principal, idOrSlug);
    const required = endpoint.scopes ?? [];
    if (required.length > 0 && !required.some((scope) => access.scopes.has(scope))) throw forbidden(required);
    return access;
  }

  async function readBody(endpoint: AnyEndpoint, request: Request): Promise<{ body: unknown; rawBody: Uint8Array | null }> {
    if (!BODY_METHODS.has(request.method) || (!endpoint.body && !endpoint.rawBody)) return { body: undefined, rawBody: null };
    const limit = endpoint.bodyLimit ?? deps.options.limits.bodyBytes;
    const consumed = consumedBodyOf(request);
    if (consumed) return { body: alreadyParsed(endpoint, request, consumed, limit), rawBody: null };
    const bytes = await readBodyBytes(request, limit);
    if (endpoint.rawBody) return { body: undefined, rawBody: bytes };
    return { body: checkedJson(endpoint, parseJsonBody(bytes)), rawBody: null };
  }

  /** An empty body reads as `{}`; a JSON `null` is a value like any other, refused by an object schema. */
  function checkedJson(endpoint: AnyEndpoint, parsed: unknown): unknown {
    checkJsonBody(parsed, deps.options.limits.bodyDepth);
    return validate(endpoint.body, parsed === undefined ? {} : parsed);
  }

  /**
   * A host's body parser ran first. Its JSON value serves a JSON route (the same policy applies);
   * a route that needs the bytes (ingest) cannot be served: the 500 and one warning name the fix.
   */
  function alreadyParsed(endpoint: AnyEndpoint, request: Request, consumed: ConsumedBody, limit: number): unknown {
    if (!endpoint.rawBody && consumed.parsed !== undefined) {
      if (Number(request.headers.get("content-length") ?? 0) > limit) throw bodyTooLarge(limit);
      return checkedJson(endpoint, consumed.parsed);
    }
    if (!warnedConsumed) {
      warnedConsumed = true;
      deps.logger.warn({ method: request.method, path: new URL(request.url).pathname }, `faultline: a request body was consumed before Faultline; answered 500 (logged once). ${consumed.fix}`);
    }
    throw bodyConsumed(consumed);
  }

  function renderError(error: unknown, path: string, requestId: string, logger: Logger): Reply | Response {
    if (isConnectionFailure(error)) {
      // An outage passes: the client is told when to come back (Sentry SDKs pause sending for Retry-After).
      logger.warn({ err: error, errorId: requestId }, "faultline: the database is unreachable; answered 503");
      error = databaseUnavailable(requestId);
    }
    if (error instanceof MigrationsPendingError) {
      // A deploy that has not run `faultline migrate` yet: unavailable, not broken; ready() retries on the next request.
      logger.warn({ err: error, pending: error.pending }, "faultline: migrations pending; answered 503");
      error = new ApiError(503, error.message, { errorId: requestId, pendingMigrations: error.pending }, { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) });
    }
    if (isDataException(error)) {
      // Backstop of the input policy: still logged as an error, since the policy should have caught it.
      logger.error({ err: error, errorId: requestId }, "faultline: the database refused a request value");
      error = new ApiError(400, "Invalid request: a value was refused by the database", { errorId: requestId });
    }
    if (!(error instanceof ApiError)) {
      logger.error({ err: error, errorId: requestId }, "faultline: unexpected error");
      error = new ApiError(500, "Internal Error", { errorId: requestId });
    }
    const apiError = error as ApiError;
    const renderer = renderers.find((candidate) => candidate.matches(path));
    return renderer ? renderer.render(apiError, requestId) : sentryErrorReply(apiError);
  }
}

/** HTTP semantic conventions: `{method} {route}` as the name (the raw path would make one name per URL). */
function describeSpan(span: Span, method: string, template: string, url: URL, status: number, requestId: string): void {
  if (template !== UNMATCHED) {
    span.updateName(`${method} ${template}`);
    span.setAttribute("http.route", template);
  }
  span.setAttributes({ "http.response.status_code": status, "url.path": url.pathname, "faultline.request_id": requestId });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Seconds a client waits before retrying a request that met a database outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

function databaseUnavailable(requestId: string): ApiError {
  return new ApiError(
    503,
    "The database is temporarily unavailable; retry later",
    { errorId: requestId },
    { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/** The 403 of a missing scope; exported for endpoints that authorize an organization they resolve themselves. */
export function forbidden(required: readonly Scope[]): ApiError {
  return new ApiError(
    403,
    "You do not have permission to perform this action.",
    { requiredScopes: required },
    { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${required.join(" ")}"` },
  );
}

function validate(schema: z.ZodType | undefined, value: unknown): unknown {
  return schema ? parseOrThrow(schema, value) : value;
}

/** Query parameters as an object; a repeated key becomes an array. */
function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function trimSlash(basePath: string): string {
  return basePath.endsWith("/") ? basePath.slice(0, -1) : basePath;
}

/** The path below the mount prefix, or null when the request is not under it. */
function stripBasePath(pathname: string, basePath: string): string | null {
  if (basePath === "") return pathname;
  if (pathname === basePath) return "/";
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null;
}

/** The reply as it leaves the pipeline: with its request id, and without a body for HEAD. */
function finish(reply: Reply | Response, requestId: string, head: boolean): Response | WireReply {
  if (!(reply instanceof Response)) {
    const wire = wireReplyOf(reply);
    wire.headers.push(["X-Request-Id", requestId]);
    return head ? { ...wire, body: null } : wire;
  }
  const response = withHeader(reply, "X-Request-Id", requestId);
  return head ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

/** Headers of a Response from elsewhere may be immutable; copy it when they are. */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}

