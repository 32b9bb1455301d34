import type { IncomingMessage, ServerResponse } from "node:http";
import type { FaultlineHandler } from "../../src/http/pipeline.js";
import { clientAddressOf, toWebRequest } from "./request.js";
import { sendWebResponse } from "./response.js";

export { clientAddressOf, type NodeRequestOptions, toWebRequest } from "./request.js";
export { sendWebResponse } from "./response.js";

/** Anything with a Faultline handler (an instance from `createFaultline`). */
export interface HasHandler {
  handler: FaultlineHandler;
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
    const response = await faultline.handler(toWebRequest(req, options), { basePath: options.basePath, clientAddress });
    await sendWebResponse(res, response);
  };
}

/** @deprecated Renamed {@link toNodeHandler} (same behaviour); this alias stays until the next major. */
export const createNodeHandler = toNodeHandler;
