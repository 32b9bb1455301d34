import type { IncomingMessage, ServerResponse } from "node:http";
import type { FaultlineHandler, HandlerOptions } from "../../src/http/pipeline.js";
import { clientAddressOf, toWebRequest } from "./request.js";
import { WIRE_HANDLER, type WireReply } from "../../src/http/wire.js";
import { sendReply } from "./response.js";

export { clientAddressOf, type NodeRequestOptions, toWebRequest } from "./request.js";
export { sendReply, sendWebResponse } from "./response.js";

/** Anything with a Faultline handler (an instance from `createFaultline`). */
export interface HasHandler {
  handler: FaultlineHandler;
}

/**
 * Serves a request through the handler's wire entry when it has one (JSON replies without a
 * `Response` object), else through the handler itself.
 */
export function serveForNode(faultline: HasHandler, request: Request, options: HandlerOptions): Promise<Response | WireReply> {
  const wire = faultline.handler[WIRE_HANDLER];
  return wire ? wire(request, options) : faultline.handler(request, options);
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
 */
export function toNodeHandler(faultline: HasHandler, options: NodeHandlerOptions = {}): NodeHandler {
  return async (req, res) => {
    const clientAddress = clientAddressOf(req, options.trustProxy ?? false);
    const reply = await serveForNode(faultline, toWebRequest(req, options), { basePath: options.basePath, clientAddress });
    await sendReply(res, reply);
  };
}

/** @deprecated Renamed {@link toNodeHandler} (same behaviour); this alias stays until the next major. */
export const createNodeHandler = toNodeHandler;
