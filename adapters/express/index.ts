import type { IncomingMessage, ServerResponse } from "node:http";
import { type HasHandler, sendWebResponse, toWebRequest } from "../node/index.js";

/** The parts of an Express request the adapter reads (no runtime import of express). */
interface ExpressRequest extends IncomingMessage {
  baseUrl: string;
  originalUrl: string;
  body?: unknown;
  rawBody?: unknown;
}

type Next = (error?: unknown) => void;

const BODY_CONSUMED =
  "Faultline could not read the request body: a body parser (express.json(), express.urlencoded(), …) consumed it first. " +
  "Mount Faultline before the body parser, or keep the raw bytes: express.json({ verify: (req, _res, buf) => { req.rawBody = buf } }).";

/** Bytes a body parser left behind: `req.rawBody` (the verify hook) or a Buffer from express.raw(). */
function bytesAlreadyRead(req: ExpressRequest): Uint8Array | undefined {
  if (req.rawBody instanceof Uint8Array) return req.rawBody;
  if (req.body instanceof Uint8Array) return req.body;
  return undefined;
}

/**
 * Express middleware: `app.use("/faultline", faultlineExpress(faultline))`. Works at the root and
 * under nested routers (the mount path comes from `req.baseUrl`). The body is never re-serialised:
 * the adapter uses the raw bytes a parser kept, or the unread stream.
 */
export function faultlineExpress(faultline: HasHandler, options: { trustProxy?: boolean } = {}) {
  return async (req: ExpressRequest, res: ServerResponse, next: Next): Promise<void> => {
    try {
      const body = bytesAlreadyRead(req);
      if (!body && req.readableEnded && hasDeclaredBody(req)) {
        res.statusCode = 500;
        res.setHeader("Content-Type", "application/json; charset=utf-8");
        res.end(JSON.stringify({ detail: BODY_CONSUMED }));
        return;
      }
      const request = toWebRequest(req, { url: req.originalUrl, body, trustProxy: options.trustProxy });
      await sendWebResponse(res, await faultline.handler(request, { basePath: req.baseUrl }));
    } catch (error) {
      next(error);
    }
  };
}

function hasDeclaredBody(req: IncomingMessage): boolean {
  return Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
}
