import { ApiError } from "../../http/errors.js";
import { formatLimit } from "../../http/body.js";

export const INVALID_DSN_KEY = "Invalid DSN key";

export function invalidDsnKey(): ApiError {
  return new ApiError(401, INVALID_DSN_KEY);
}

/** No key in the query, the auth headers or the envelope header. */
export function missingDsnKey(): ApiError {
  return new ApiError(401, "Missing DSN key (sentry_key)");
}

export function tooLarge(what: string, limit: number): ApiError {
  return new ApiError(413, `${what} too large (limit ${formatLimit(limit)})`);
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    429,
    `Rate limit exceeded; retry after ${retryAfterSeconds} seconds`,
    {},
    { "Retry-After": String(retryAfterSeconds), "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:project:rate_limited` },
  );
}

/** Queued ingest past `ingest.maxQueueDepth`: the digest is behind, the SDK should back off briefly. */
export function queueFull(retryAfterSeconds: number): ApiError {
  return new ApiError(
    429,
    `Ingest queue full; retry after ${retryAfterSeconds} seconds`,
    {},
    { "Retry-After": String(retryAfterSeconds), "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:organization:queue_full` },
  );
}

/** Past `ingest.shedAtEventLoopDelayMs`: this process's event loop is saturated, the SDK should back off briefly. */
export function overloaded(retryAfterSeconds: number): ApiError {
  return new ApiError(
    429,
    `Ingest overloaded; retry after ${retryAfterSeconds} seconds`,
    {},
    { "Retry-After": String(retryAfterSeconds), "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:organization:overloaded` },
  );
}
