import type { IncomingMessage, ServerResponse } from "node:http";
import type { FaultlineHandler } from "../../src/http/pipeline.js";
import { toWebRequest } from "./request.js";
import { sendWebResponse } from "./response.js";

export { type NodeRequestOptions, toWebRequest } from "./request.js";
export { sendWebResponse } from "./response.js";

/** Anything with a Faultline handler (an instance from `createFaultline`). */
export interface HasHandler {
  handler: FaultlineHandler;
}

/**
 * A plain `node:http` request listener: `http.createServer(createNodeHandler(faultline))`.
 * Mounted under a prefix, pass `{ basePath: "/faultline" }` (the request path keeps the prefix).
 */
export function createNodeHandler(faultline: HasHandler, options: { basePath?: string; trustProxy?: boolean } = {}) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const response = await faultline.handler(toWebRequest(req, options), { basePath: options.basePath });
    await sendWebResponse(res, response);
  };
}
