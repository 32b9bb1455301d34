import type { Reply } from "../../../http/endpoint.js";
import type { ApiError } from "../../../http/errors.js";
import { sentryErrorReply } from "../../../http/responses.js";
import type { ErrorRenderer } from "../../../plugin/plugin.js";

/** Browser SDKs post from any origin with DSN auth (no cookies), so `*` is safe here. */
export const CORS_RESPONSE_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "X-Sentry-Rate-Limits, Retry-After, X-Sentry-Error",
} as const;

export const CORS_PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers":
    "content-type, x-sentry-auth, x-svc-auth, authorization, content-encoding, sentry-trace, baggage, x-requested-with, origin, accept",
  "Access-Control-Max-Age": "86400",
} as const;

export function preflightResponse(): Reply {
  return { status: 200, headers: CORS_PREFLIGHT_HEADERS };
}

const INGEST_PATH = /^\/api\/[^/]+\/(?:envelope|store)\/?$/;

/**
 * Errors on ingest paths (including the pipeline's own 413 and 405) keep Sentry's `{detail}` body,
 * add the CORS headers so browser SDKs can read them, and repeat the detail in `X-Sentry-Error`.
 */
export const ingestErrorRenderer: ErrorRenderer = {
  matches: (path) => INGEST_PATH.test(path),
  render: (error: ApiError) => ingestErrorReply(error),
};

/** An error on an ingest path as SDKs read it: `{detail}`, the CORS headers, `X-Sentry-Error`. */
export function ingestErrorReply(error: ApiError): Reply {
  return {
    ...sentryErrorReply(error),
    headers: { ...error.headers, ...CORS_RESPONSE_HEADERS, "X-Sentry-Error": asHeaderValue(error.detail) },
  };
}

/** Header values must be Latin-1 without control characters; details may quote anything. */
function asHeaderValue(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
}
