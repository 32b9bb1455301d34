import type { IncomingMessage, ServerResponse } from "node:http";
import { type HasHandler, sendWebResponse, toWebRequest } from "../node/index.js";

/** The parts of an Express request the adapter reads (no runtime import of express). */
interface ExpressRequest extends IncomingMessage {
  baseUrl: string;
  originalUrl: string;
  protocol?: string;
  app?: { get(setting: string): unknown };
  body?: unknown;
  rawBody?: unknown;
}

type Next = (error?: unknown) => void;

const BODY_CONSUMED =
  "Faultline could not read the request body: a body parser (express.json(), express.urlencoded(), …) consumed it first. " +
  "Mount Faultline before the body parser, or keep the raw bytes: express.json({ verify: keepRawBody }) with keepRawBody from faultline/express.";

/** For `express.json({ verify: keepRawBody })`: keeps the bytes the parser read, so Faultline can use them. */
export function keepRawBody(req: IncomingMessage, _res: ServerResponse, buffer: Buffer): void {
  (req as ExpressRequest).rawBody = buffer;
}

/** Bytes a body parser left behind: `req.rawBody` (the verify hook) or a Buffer from express.raw(). */
function bytesAlreadyRead(req: ExpressRequest): Uint8Array | undefined {
  if (req.rawBody instanceof Uint8Array) return req.rawBody;
  if (req.body instanceof Uint8Array) return req.body;
  return undefined;
}

type TrustProxy = (address: string | undefined, hop: number) => boolean;

/**
 * The host (with its port) the client used: Express 5's `req.host`, computed here because on
 * Express 4 `req.host` is a deprecated alias of `req.hostname`, which drops the port. Same rule as
 * Express: `X-Forwarded-Host` only when the app's `trust proxy` setting trusts the peer.
 */
function hostOf(req: ExpressRequest): string | undefined {
  const trust = req.app?.get("trust proxy fn") as TrustProxy | undefined;
  const forwarded = req.headers["x-forwarded-host"];
  if (typeof forwarded === "string" && forwarded && trust?.(req.socket.remoteAddress, 0)) return forwarded.split(",")[0]?.trim();
  return req.headers.host;
}

function hasDeclaredBody(req: IncomingMessage): boolean {
  return Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
}

/**
 * Express middleware: `app.use("/faultline", faultlineExpress(faultline))`. Works at the root and
 * under nested routers (the mount path is `req.baseUrl`; Link headers and DSNs carry it). The body
 * is never re-serialised: the adapter streams the unread request, or uses the bytes a parser kept
 * (`express.raw()`, or `express.json({ verify: keepRawBody })`), else answers 500 saying what to change.
 * The origin follows Express's own `trust proxy` setting.
 */
export function faultlineExpress(faultline: HasHandler) {
  return async (req: ExpressRequest, res: ServerResponse, next: Next): Promise<void> => {
    try {
      const body = bytesAlreadyRead(req);
      if (!body && req.readableEnded && hasDeclaredBody(req)) {
        res.statusCode = 500;
        res.setHeader("Content-Type", "application/json; charset=utf-8");
        res.end(JSON.stringify({ detail: BODY_CONSUMED }));
        return;
      }
      const host = hostOf(req);
      const origin = req.protocol && host ? `${req.protocol}://${host}` : undefined;
      const request = toWebRequest(req, { url: req.originalUrl, origin, body, bodyDecoded: body !== undefined });
      await sendWebResponse(res, await faultline.handler(request, { basePath: req.baseUrl }));
    } catch (error) {
      next(error);
    }
  };
}
