import type { HasHandler } from "../node/index.js";
import { requestTargetReply, requestUrl } from "../../src/http/request-target.js";
import { wireToResponse } from "../../src/http/wire.js";

export type { HasHandler } from "../node/index.js";

type RouteHandler = (request: Request) => Promise<Response>;

/** The exports of an App Router catch-all `route.ts`. */
export interface NextRouteHandlers {
  GET: RouteHandler;
  POST: RouteHandler;
  PUT: RouteHandler;
  PATCH: RouteHandler;
  DELETE: RouteHandler;
  OPTIONS: RouteHandler;
  HEAD: RouteHandler;
}

export interface NextHandlerOptions {
  /** Where the catch-all route lives, as seen in `request.url` (default `/api/faultline`). */
  basePath?: string;
  /**
   * The sender's address, for `{{auto}}` user IPs: a route handler sees no socket, so the host
   * says which header its trusted proxy sets (e.g. the first `X-Forwarded-For` entry). Without
   * it the address is unknown and `{{auto}}` is dropped rather than guessed from a client header.
   */
  clientAddress?: (request: Request) => string | undefined;
}

const first = (value: string | null) => value?.split(",")[0]?.trim() || undefined;

/**
 * The request as Faultline should see it under Next:
 *
 * - `request.url` under `next start` names the server's own hostname (`localhost`), not the one
 *   the client used; Next records that in `X-Forwarded-Host` / `-Proto` (from `Host` unless a
 *   proxy set them). DSNs and Link headers are built from the URL, so rebuild it from those —
 *   through the adapters' guard, which throws a 400 for a forwarded host or scheme that makes no URL.
 * - Without `Accept-Encoding`: Next removes `Content-Encoding` from every route handler's response
 *   (next/dist/server/send-response.js), so the dashboard's pre-compressed assets would reach the
 *   browser as brotli bytes labelled plain JavaScript. Next compresses responses itself.
 */
function asFaultlineSees(request: Request): Request {
  const host = first(request.headers.get("x-forwarded-host"));
  const url = new URL(request.url);
  const scheme = host ? (first(request.headers.get("x-forwarded-proto")) ?? url.protocol.slice(0, -1)) : "";
  const clientUrl = host
    ? requestUrl(`${url.pathname}${url.search}`, { scheme, host, hostSource: "X-Forwarded-Host header" })
    : url.href;
  if (clientUrl === url.href && !request.headers.has("accept-encoding")) return request;
  const headers = new Headers(request.headers);
  headers.delete("accept-encoding");
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method,
    headers,
    body: request.body,
    duplex: "half",
    signal: request.signal,
  };
  return new Request(clientUrl, init);
}

/** The request as the client addressed it, or the 400 of a malformed forwarded host or scheme. */
function clientRequestOrAnswer(request: Request): Request | Response {
  try {
    return asFaultlineSees(request);
  } catch (error) {
    const badRequest = requestTargetReply(error);
    if (badRequest) return wireToResponse(badRequest);
    throw error;
  }
}

/**
 * The handlers of `app/api/faultline/[...path]/route.ts`:
 *
 *     export const runtime = "nodejs";
 *     export const { GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD } = toNextJsHandler(() => faultline);
 *
 * Routing uses `request.url` (the full path, prefix included), never `params`; its origin is the
 * one the client used (see `X-Forwarded-Host`), or set `publicUrl` on the instance. Pass the instance,
 * or a function returning it, so nothing is created when Next only imports the module to build.
 */
export function toNextJsHandler(
  source: HasHandler | (() => HasHandler | Promise<HasHandler>),
  options: NextHandlerOptions = {},
): NextRouteHandlers {
  const basePath = options.basePath ?? "/api/faultline";
  const handle: RouteHandler = async (request) => {
    const clientRequest = clientRequestOrAnswer(request);
    if (clientRequest instanceof Response) return clientRequest;
    const faultline = typeof source === "function" ? await source() : source;
    return faultline.handler(clientRequest, { basePath, clientAddress: options.clientAddress?.(request) });
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle, HEAD: handle };
}

const INSTANCES = Symbol.for("faultline.next.instances");

/**
 * One instance per `key` for the whole process, kept on `globalThis`: Next's dev server re-evaluates
 * modules on every hot reload, and each evaluation would otherwise open another database (and
 * another worker). `factory` runs once per key; later calls — after any reload — get the same instance.
 *
 *     export const faultline = getOrCreateFaultline("main", () => createFaultline({ database: process.env.DATABASE_URL }));
 */
export function getOrCreateFaultline<T>(key: string, factory: () => T): T {
  const store = ((globalThis as Record<symbol, unknown>)[INSTANCES] ??= new Map<string, unknown>()) as Map<
    string,
    unknown
  >;
  if (!store.has(key)) store.set(key, factory());
  return store.get(key) as T;
}
