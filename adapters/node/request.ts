import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { type BodyReader, CONSUMED_BODY, type ConsumedBody, READ_BODY } from "../../src/http/body.js";
import { originOfString, type RequestOrigin, requestUrl } from "../../src/http/request-target.js";

export interface NodeRequestOptions {
  /** The path prefix the request was mounted under (already part of `url`). */
  basePath?: string;
  /** The original path and query (defaults to `req.url`). */
  url?: string;
  /**
   * `protocol://host` of the request, when a framework already worked it out (Express's `trust
   * proxy`); as a {@link RequestOrigin}, it also says which header the host came from (named in the 400).
   */
  origin?: string | RequestOrigin;
  /** Body bytes a framework already read; otherwise the request stream is passed through unread. */
  body?: Uint8Array;
  /** `body` was decompressed by the framework (Express's body parsers): drop the wire's encoding headers. */
  bodyDecoded?: boolean;
  /** Trust `X-Forwarded-Proto` / `X-Forwarded-Host` (behind your own proxy only). */
  trustProxy?: boolean;
  /**
   * When a host's parser already read the stream (and `body` is not given): the JSON value it
   * produced, served to JSON routes as if Faultline had parsed it.
   */
  parsedBody?: unknown;
  /** When the stream was already read: how the host should mount Faultline instead (shown in the 500 and the warning). */
  consumedFix?: string;
}

const NODE_FIX = "Pass Faultline the request before anything reads its body (no body parser ahead of it).";

const DIRECT = new Set<PropertyKey>(["url", "method", "headers"]);

function originOf(req: IncomingMessage, trustProxy: boolean): RequestOrigin {
  const first = (name: string) =>
    trustProxy
      ? String(req.headers[name] ?? "")
          .split(",")[0]
          ?.trim()
      : "";
  const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const scheme = first("x-forwarded-proto") || (encrypted ? "https" : "http");
  const forwardedHost = first("x-forwarded-host");
  if (forwardedHost) return { scheme, host: forwardedHost, hostSource: "X-Forwarded-Host header" };
  // HTTP/1.0 clients may send no Host at all.
  return { scheme, host: req.headers.host || "localhost", hostSource: "Host header" };
}

/**
 * The sender's address: the socket's peer, or — with `trustProxy`, behind the host's own proxy —
 * the first (client) address of `X-Forwarded-For`. Without trust that header is the client's own
 * claim and is ignored.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy
    ? String(req.headers["x-forwarded-for"] ?? "")
        .split(",")[0]
        ?.trim()
    : "";
  return forwarded || req.socket?.remoteAddress || undefined;
}

function headersOf(req: IncomingMessage, decoded: boolean): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  // Bytes a body parser kept are already decompressed: their encoding and length are not the wire's.
  if (decoded) for (const name of ["content-encoding", "content-length", "transfer-encoding"]) headers.delete(name);
  return headers;
}

/** Reads the body from the Node request itself (or the bytes a framework already read), at most `limit` bytes. */
function bodyReader(req: IncomingMessage, hasBody: boolean, alreadyRead: Uint8Array | undefined): BodyReader {
  return (limit) => {
    if (alreadyRead) return Promise.resolve(alreadyRead.byteLength > limit ? null : alreadyRead);
    if (!hasBody) return Promise.resolve(new Uint8Array(0));
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= limit) return void chunks.push(chunk);
        // Past the limit: stop keeping bytes and discard the rest, so the 413 can still be answered.
        req.off("data", onData).off("end", onEnd);
        req.resume();
        resolve(null);
      };
      const onEnd = () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      const onClose = () =>
        req.complete ? undefined : reject(new Error("the client closed the connection before the body ended"));
      req.on("data", onData).once("end", onEnd).once("error", reject).once("close", onClose);
    });
  };
}

/**
 * A web `Request` over a Node request, built lazily: `url`, `method` and `headers` are plain
 * values, and a real `Request` (with the body: bytes already read, else the unread socket stream,
 * never a copy) is made only when something else is touched — so a GET never builds one.
 *
 * Throws a `RequestTargetError` (a 400; `requestTargetReply` renders it) when the request target
 * or the Host / forwarded headers make no URL.
 */
export function toWebRequest(req: IncomingMessage, options: NodeRequestOptions = {}): Request {
  const method = req.method ?? "GET";
  const target = options.url ?? req.url ?? "/";
  const origin =
    typeof options.origin === "string"
      ? originOfString(options.origin)
      : (options.origin ?? originOf(req, options.trustProxy ?? false));
  const url = requestUrl(target, origin);
  const declared = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  const hasBody = method !== "GET" && method !== "HEAD" && (options.body !== undefined || declared);
  // Read to the end by someone else (a body parser) and no bytes handed over: nothing left to stream.
  const consumed: ConsumedBody | undefined =
    hasBody && options.body === undefined && req.readableEnded
      ? { parsed: options.parsedBody, fix: options.consumedFix ?? NODE_FIX }
      : undefined;
  let headers: Headers | undefined;
  let real: Request | undefined;
  const materialize = (): Request => {
    if (real) return real;
    const init: RequestInit & { duplex?: "half" } = {
      method,
      headers: (headers ??= headersOf(req, options.bodyDecoded === true)),
    };
    if (hasBody) {
      init.body = options.body
        ? (options.body as unknown as BodyInit)
        : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
      init.duplex = "half";
    }
    return (real = new Request(url, init));
  };
  const direct = {
    url,
    method,
    get headers() {
      return real ? real.headers : (headers ??= headersOf(req, options.bodyDecoded === true));
    },
  };
  return new Proxy(Object.create(Request.prototype) as Request, {
    get(_target, property) {
      if (DIRECT.has(property)) return direct[property as keyof typeof direct];
      if (property === "body" && !hasBody && !real) return null;
      if (property === CONSUMED_BODY) return consumed;
      if (property === "bodyUsed" && !real) return consumed !== undefined;
      // Until something made the real Request (and so took the stream), the body is read directly.
      if (property === READ_BODY) return real ? undefined : bodyReader(req, hasBody, options.body);
      const target = materialize();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
