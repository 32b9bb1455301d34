import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";

export interface NodeRequestOptions {
  /** The path prefix the request was mounted under (already part of `url`). */
  basePath?: string;
  /** The original path and query (defaults to `req.url`). */
  url?: string;
  /** `protocol://host` of the request, when a framework already worked it out (Express's `trust proxy`). */
  origin?: string;
  /** Body bytes a framework already read; otherwise the request stream is passed through unread. */
  body?: Uint8Array;
  /** `body` was decompressed by the framework (Express's body parsers): drop the wire's encoding headers. */
  bodyDecoded?: boolean;
  /** Trust `X-Forwarded-Proto` / `X-Forwarded-Host` (behind your own proxy only). */
  trustProxy?: boolean;
}

const DIRECT = new Set<PropertyKey>(["url", "method", "headers"]);

function originOf(req: IncomingMessage, trustProxy: boolean): string {
  const first = (name: string) => (trustProxy ? String(req.headers[name] ?? "").split(",")[0]?.trim() : "");
  const encrypted = (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
  return `${first("x-forwarded-proto") || (encrypted ? "https" : "http")}://${first("x-forwarded-host") || req.headers.host || "localhost"}`;
}

function headersOf(req: IncomingMessage, decoded: boolean): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  // Bytes a body parser kept are already decompressed: their encoding and length are not the wire's.
  if (decoded) for (const name of ["content-encoding", "content-length", "transfer-encoding"]) headers.delete(name);
  return headers;
}

/**
 * A web `Request` over a Node request, built lazily: `url`, `method` and `headers` are plain
 * values, and a real `Request` (with the body: bytes already read, else the unread socket stream,
 * never a copy) is made only when something else is touched — so a GET never builds one.
 */
export function toWebRequest(req: IncomingMessage, options: NodeRequestOptions = {}): Request {
  const method = req.method ?? "GET";
  const path = options.url ?? req.url ?? "/";
  const origin = options.origin ?? originOf(req, options.trustProxy ?? false);
  // Concatenated, so a path like "//other.host/x" stays a path instead of naming another host.
  const url = (path.startsWith("/") ? new URL(`${origin}${path}`) : new URL(path, origin)).href;
  const declared = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  const hasBody = method !== "GET" && method !== "HEAD" && (options.body !== undefined || declared);
  let headers: Headers | undefined;
  let real: Request | undefined;
  const materialize = (): Request => {
    if (real) return real;
    const init: RequestInit & { duplex?: "half" } = { method, headers: (headers ??= headersOf(req, options.bodyDecoded === true)) };
    if (hasBody) {
      init.body = options.body ? (options.body as unknown as BodyInit) : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
      init.duplex = "half";
    }
    return (real = new Request(url, init));
  };
  const direct = { url, method, get headers() { return real ? real.headers : (headers ??= headersOf(req, options.bodyDecoded === true)); } };
  return new Proxy(Object.create(Request.prototype) as Request, {
    get(_target, property) {
      if (DIRECT.has(property)) return direct[property as keyof typeof direct];
      if (property === "body" && !hasBody && !real) return null;
      const target = materialize();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
