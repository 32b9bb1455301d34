import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { FaultlineHandler } from "../../src/http/pipeline.js";

/** Anything with a Faultline handler (an instance from `createFaultline`). */
export interface HasHandler {
  handler: FaultlineHandler;
}

export interface NodeRequestOptions {
  /** The path prefix the request was mounted under (already part of `url`). */
  basePath?: string;
  /** The original path and query (defaults to `req.url`). */
  url?: string;
  /** Body bytes a framework already read; otherwise the request stream is passed through. */
  body?: Uint8Array;
  /** Trust `X-Forwarded-Proto` / `X-Forwarded-Host` (behind your own proxy only). */
  trustProxy?: boolean;
}

const NO_BODY = new Set(["GET", "HEAD"]);

function originOf(req: IncomingMessage, trustProxy: boolean): string {
  const forwardedProto = trustProxy ? String(req.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim() : "";
  const forwardedHost = trustProxy ? String(req.headers["x-forwarded-host"] ?? "").split(",")[0]?.trim() : "";
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const protocol = forwardedProto || (encrypted ? "https" : "http");
  return `${protocol}://${forwardedHost || req.headers.host || "localhost"}`;
}

/**
 * A web `Request` over a Node request. GET and HEAD carry no body; otherwise the already-read
 * bytes are used when given, else the socket stream is passed through unread (no copy).
 */
export function toWebRequest(req: IncomingMessage, options: NodeRequestOptions = {}): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers };
  if (!NO_BODY.has(method)) {
    if (options.body) init.body = options.body as unknown as BodyInit;
    else {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = "half";
    }
  }
  return new Request(new URL(options.url ?? req.url ?? "/", originOf(req, options.trustProxy ?? false)), init);
}

/** Writes a web `Response` to a Node response, streaming the body and keeping repeated headers. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("Set-Cookie", cookies);
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  await new Promise<void>((resolve, reject) => {
    body.on("error", reject);
    res.on("finish", resolve);
    res.on("close", resolve);
    body.pipe(res);
  });
}

/**
 * A plain `node:http` request listener: `http.createServer(createNodeHandler(faultline))`.
 * Mounted under a prefix, pass `{ basePath: "/faultline" }`.
 */
export function createNodeHandler(faultline: HasHandler, options: { basePath?: string; trustProxy?: boolean } = {}) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const response = await faultline.handler(toWebRequest(req, options), { basePath: options.basePath });
    await sendWebResponse(res, response);
  };
}
