import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestOrigin } from "../../src/http/request-target.js";
import { type HasHandler, sendReply, serveNodeRequest } from "../node/index.js";

/** The parts of an Express request the adapter reads (no runtime import of express; Express 4 and 5 alike). */
interface ExpressRequest extends IncomingMessage {
  baseUrl: string;
  originalUrl: string;
  /** Honours `trust proxy` in Express 4 and 5. */
  protocol?: string;
  /** The client's address under `trust proxy` (Express 4 and 5). */
  ip?: string;
  app?: { get(setting: string): unknown };
  body?: unknown;
  rawBody?: unknown;
}

type Next = (error?: unknown) => void;

/** An Express middleware: `(req, res, next)`. */
export type ExpressHandler = (req: ExpressRequest, res: ServerResponse, next: Next) => Promise<void>;

const MOUNT_FIRST =
  'Mount Faultline before the body parser (app.use("/faultline", toExpressHandler(faultline)) ahead of app.use(express.json())), ' +
  "or keep the raw bytes: express.json({ verify: keepRawBody }) with keepRawBody from faultline/express.";

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

/** What express.json() left in `req.body`: a JSON value (not a string from express.text(), not a form). */
function parsedJson(req: ExpressRequest): unknown {
  const json = /^application\/([\w.+-]+\+)?json\b/i.test(req.headers["content-type"] ?? "");
  return json && typeof req.body !== "string" ? req.body : undefined;
}

type TrustProxy = (address: string | undefined, hop: number) => boolean;

/**
 * `protocol://host` under the app's `trust proxy` setting. Express 5's `req.host` does this, but
 * Express 4's is a deprecated alias of `hostname` (no port), so the same rule is applied here:
 * `X-Forwarded-Host` (first value) from a trusted peer, else `Host`.
 */
function originOf(req: ExpressRequest): RequestOrigin | undefined {
  const trust = req.app?.get("trust proxy fn") as TrustProxy | undefined;
  const forwarded = req.headers["x-forwarded-host"];
  const trusted = typeof forwarded === "string" && forwarded !== "" && trust?.(req.socket.remoteAddress, 0) === true;
  const host = trusted ? (forwarded.split(",")[0] as string).trimEnd() : req.headers.host;
  if (!req.protocol || !host) return undefined;
  return { scheme: req.protocol, host, hostSource: trusted ? "X-Forwarded-Host header" : "Host header" };
}

/**
 * Express middleware (Express 4 and 5): `app.use("/faultline", toExpressHandler(faultline))`.
 * Works at the root and under nested routers (the mount path is `req.baseUrl`; Link headers and
 * DSNs carry it). The body is never re-serialised: the adapter streams the unread request, or uses
 * the bytes a parser kept (`express.raw()`, or `express.json({ verify: keepRawBody })`). Behind a
 * plain `express.json()`, JSON routes use the value it parsed; ingest, which needs the bytes,
 * answers 500 naming the fix (and logs it once). The origin follows Express's `trust proxy` setting.
 */
export function toExpressHandler(faultline: HasHandler): ExpressHandler {
  return async (req, res, next) => {
    try {
      const body = bytesAlreadyRead(req);
      const requestOptions = {
        url: req.originalUrl,
        origin: originOf(req),
        body,
        bodyDecoded: body !== undefined,
        parsedBody: parsedJson(req),
        consumedFix: MOUNT_FIRST,
      };
      // `req.ip` follows the app's `trust proxy` setting (X-Forwarded-For only from trusted peers).
      const handlerOptions = { basePath: req.baseUrl, clientAddress: req.ip ?? req.socket.remoteAddress };
      // A malformed Host or request target is a 400 here already; anything unexpected goes to the app's error handler.
      await sendReply(res, await serveNodeRequest(faultline, req, requestOptions, handlerOptions));
    } catch (error) {
      next(error);
    }
  };
}

/** @deprecated Renamed {@link toExpressHandler} (same behaviour); this alias stays until the next major. */
export const faultlineExpress = toExpressHandler;
