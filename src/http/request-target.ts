import { ApiError } from "./errors.js";
import { sentryErrorReply } from "./responses.js";
import { type WireReply, wireReplyOf } from "./wire.js";

/**
 * The one guard every adapter puts between a raw request and `new URL`: a request target and a
 * `Host` (or `X-Forwarded-Host` / `-Proto` from a trusted proxy) that do not make a URL — or make
 * one naming another host or path than the client sent — are a 400 naming what was wrong, never
 * an exception out of the host's request listener, which a `Host: exa mple.com` once ended
 * (docs/http.md, "Request targets and `Host`").
 */

/** A 400 for a request whose target or origin headers make no URL; adapters answer it themselves. */
export class RequestTargetError extends ApiError {
  constructor(detail: string) {
    super(400, detail);
    this.name = "RequestTargetError";
  }
}

/** Where a request's scheme and host came from, so a 400 can name the header that was wrong. */
export interface RequestOrigin {
  /** `http` or `https` — from the connection, or from `X-Forwarded-Proto` behind a trusted proxy. */
  scheme: string;
  /** `host[:port]` as the client (or its proxy) sent it. */
  host: string;
  /** What `host` was read from, as named in the 400: `"Host header"`, `"X-Forwarded-Host header"`, `"origin"`. */
  hostSource: string;
}

/**
 * A host name, an IPv4 address or a bracketed IPv6 address, and an optional port. Anything else —
 * a space, `/`, `?`, `#` or `@` — would move the request's path into the host, or its host into
 * credentials, once the URL is parsed.
 */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::\d{1,5})?$/;
const SCHEMES = new Set(["http", "https"]);
/** How much of a bad value a 400 quotes back (a target may be 64 KB). */
const QUOTED_LENGTH = 100;

function quoted(value: string): string {
  return JSON.stringify(value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value);
}

function parsedUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function checkOrigin(origin: RequestOrigin): void {
  if (!SCHEMES.has(origin.scheme))
    throw new RequestTargetError(
      `Invalid X-Forwarded-Proto header: ${quoted(origin.scheme)} is neither http nor https`,
    );
  if (!AUTHORITY.test(origin.host) || !parsedUrl(`http://${origin.host}/`)) {
    throw new RequestTargetError(
      `Invalid ${origin.hostSource}: ${quoted(origin.host)} is not a host name or address with an optional port`,
    );
  }
}

/**
 * `protocol://host` as an origin, e.g. what a host framework worked out itself; a string that is
 * not one is checked as a host, so the 400 quotes it.
 */
export function originOfString(origin: string): RequestOrigin {
  const [scheme = "", host = origin] = origin.split("://", 2);
  return { scheme, host, hostSource: "origin" };
}

/**
 * The absolute URL of a request from its target as received (`req.url`) and its origin:
 *
 * - origin-form (`/path?query`) is appended to the origin as it is, so `//other.host/x` stays a path;
 * - absolute-form (`http://host/path`, what a client sends a proxy) keeps its own authority, which
 *   a server must use instead of `Host` (RFC 9112 §3.2.2); only http(s), without credentials;
 * - asterisk-form (`OPTIONS *`) names no resource Faultline serves: 400, as @hono/node-server answers.
 *
 * Throws {@link RequestTargetError} for anything else and for a bad scheme or host.
 */
export function requestUrl(target: string, origin: RequestOrigin): string {
  if (target.startsWith("/")) {
    const scheme = origin.scheme.toLowerCase();
    checkOrigin({ ...origin, scheme });
    const url = parsedUrl(`${scheme}://${origin.host}${target}`);
    if (!url) throw new RequestTargetError(`Invalid request target ${quoted(target)}`);
    return url.href;
  }
  if (target === "*")
    throw new RequestTargetError(
      'The request target "*" (asterisk-form) names no resource; Faultline serves paths ("/api/0/…")',
    );
  return absoluteFormUrl(target);
}

function absoluteFormUrl(target: string): string {
  const url = parsedUrl(target);
  if (!url || !SCHEMES.has(url.protocol.slice(0, -1)) || !url.host) {
    throw new RequestTargetError(
      `Invalid request target ${quoted(target)}: expected a path ("/…") or an absolute http(s) URL`,
    );
  }
  // Not quoted back: the credentials are the point of refusing it.
  if (url.username || url.password)
    throw new RequestTargetError(
      "Invalid request target: an absolute URL with credentials (user:password@) is not accepted",
    );
  return url.href;
}

/** The 400 an adapter sends for a {@link RequestTargetError} (the pipeline's `{detail}` body), else undefined. */
export function requestTargetReply(error: unknown): WireReply | undefined {
  return error instanceof RequestTargetError ? wireReplyOf(sentryErrorReply(error)) : undefined;
}
