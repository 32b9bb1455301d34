import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../../src/http/errors.js";
import type { HandlerOptions } from "../../src/http/handler-options.js";
import type { FaultlineHandler } from "../../src/http/pipeline.js";
import { requestTargetReply } from "../../src/http/request-target.js";
import { sentryErrorReply } from "../../src/http/responses.js";
import { createDefaultLogger, HANDLER_LOGGER, type Logger } from "../../src/logging/logger.js";
import { clientAddressOf, type NodeRequestOptions, toWebRequest } from "./request.js";
import { WIRE_HANDLER, type WireReply, wireReplyOf } from "../../src/http/wire.js";
import { sendReply } from "./response.js";
import { EARLY_REFUSAL, type EarlyRequest } from "../../src/http/early-refusal.js";

export { clientAddressOf, type NodeRequestOptions, toWebRequest } from "./request.js";
export { sendReply, sendWebResponse } from "./response.js";
export type { RequestOrigin } from "../../src/http/request-target.js";

/** Anything with a Faultline handler (an instance from `createFaultline`). */
export interface HasHandler {
  handler: FaultlineHandler;
}

/**
 * Serves a request through the handler's wire entry when it has one (JSON replies without a
 * `Response` object), else through the handler itself.
 */
export function serveForNode(
  faultline: HasHandler,
  request: Request,
  options: HandlerOptions,
): Promise<Response | WireReply> {
  const wire = faultline.handler[WIRE_HANDLER];
  return wire ? wire(request, options) : faultline.handler(request, options);
}

/**
 * The guard every Node adapter serves through: a request whose target or Host (or forwarded
 * headers) make no URL is answered 400 with a `{detail}` naming what was wrong, without reaching
 * the pipeline; anything else is the pipeline's answer.
 */
export function serveNodeRequest(
  faultline: HasHandler,
  req: IncomingMessage,
  requestOptions: NodeRequestOptions,
  handlerOptions: HandlerOptions,
): Promise<Response | WireReply> {
  const early = faultline.handler[EARLY_REFUSAL]?.(earlyRequest(req, requestOptions, handlerOptions.basePath));
  if (early) {
    // The body is never read: drained, so the connection can serve its next request.
    req.resume();
    return early;
  }
  let request: Request;
  try {
    request = toWebRequest(req, requestOptions);
  } catch (error) {
    const badRequest = requestTargetReply(error);
    if (badRequest) return Promise.resolve(badRequest);
    throw error;
  }
  return serveForNode(faultline, request, handlerOptions);
}

/** The request line and headers as a refusal before the body reads them (no `Request`, no URL parse). */
function earlyRequest(req: IncomingMessage, options: NodeRequestOptions, basePath = ""): EarlyRequest {
  const target = options.url ?? req.url ?? "/";
  const queryAt = target.indexOf("?");
  const fullPath = queryAt === -1 ? target : target.slice(0, queryAt);
  const below = basePath && fullPath.startsWith(basePath) ? fullPath.slice(basePath.length) : fullPath;
  return {
    method: req.method ?? "GET",
    path: below || "/",
    query: queryAt === -1 ? "" : target.slice(queryAt + 1),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
  };
}

let fallbackLogger: Logger | undefined;

/** The instance's logger; a handler from elsewhere (a wrapper, an older build) logs to stderr. */
function loggerOf(faultline: HasHandler): Logger {
  return faultline.handler[HANDLER_LOGGER] ?? (fallbackLogger ??= createDefaultLogger());
}

/**
 * The last word on a request whose serving threw in a `node:http` listener, where nothing above
 * would catch it (an unhandled rejection can end the host): logged, and answered 500 — or, when
 * the reply had begun, the connection is closed, so the client sees a cut reply, not a whole one.
 */
function answerUnexpected(res: ServerResponse, error: unknown, logger: Logger): void {
  logger.error({ err: error }, "faultline: unexpected error serving a request; answered 500");
  if (res.headersSent) return void res.destroy();
  try {
    void sendReply(res, wireReplyOf(sentryErrorReply(new ApiError(500, "Internal Error"))));
  } catch {
    res.destroy();
  }
}

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /** The prefix the handler is mounted under (the request path keeps it). */
  basePath?: string;
  /** Trust `X-Forwarded-Proto` / `X-Forwarded-Host` / `X-Forwarded-For` (behind your own proxy only). */
  trustProxy?: boolean;
}

/** A `node:http` request listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * A plain `node:http` request listener: `http.createServer(toNodeHandler(faultline))`.
 * Mounted under a prefix, pass `{ basePath: "/faultline" }` (the request path keeps the prefix).
 * Its promise never rejects: a malformed request is a 400, anything unexpected a logged 500.
 */
export function toNodeHandler(faultline: HasHandler, options: NodeHandlerOptions = {}): NodeHandler {
  return async (req, res) => {
    try {
      const clientAddress = clientAddressOf(req, options.trustProxy ?? false);
      const reply = await serveNodeRequest(faultline, req, options, { basePath: options.basePath, clientAddress });
      await sendReply(res, reply);
    } catch (error) {
      answerUnexpected(res, error, loggerOf(faultline));
    }
  };
}

/** @deprecated Renamed {@link toNodeHandler} (same behaviour); this alias stays until the next major. */
export const createNodeHandler = toNodeHandler;
