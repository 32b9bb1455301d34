import { ApiError } from "../../../http/errors.js";
import { formatLimit } from "../../../http/body.js";

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

/**
 * A refusal SDKs are told to retry later. It is an answer, not a fault, and in an error storm
 * there are thousands a second: built without a stack trace, whose capture was ~18 µs of each
 * `429` (docs/performance.md, "Error storm and ack-to-visible") and is never read for a 4xx.
 */
function refusal(detail: string, headers: Record<string, string>): ApiError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ApiError(429, detail, {}, headers);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  return refusal(`Rate limit exceeded; retry after ${retryAfterSeconds} seconds`, {
    "Retry-After": String(retryAfterSeconds),
    "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:project:rate_limited`,
  });
}

/**
 * The organization's budget is spent (`usage_exceeded`) or spike protection holds it back
 * (`spike_protection`): scoped to the organization, so SDKs stop sending for every project.
 */
export function organizationThrottled(retryAfterSeconds: number, reason: string): ApiError {
  return refusal(`Organization quota exceeded (${reason}); retry after ${retryAfterSeconds} seconds`, {
    "Retry-After": String(retryAfterSeconds),
    "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:organization:${reason}`,
  });
}

/** Queued ingest past `ingest.maxQueueDepth`: the digest is behind, the SDK should back off briefly. */
export function queueFull(retryAfterSeconds: number): ApiError {
  return refusal(`Ingest queue full; retry after ${retryAfterSeconds} seconds`, {
    "Retry-After": String(retryAfterSeconds),
    "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:organization:queue_full`,
  });
}

/** Past `ingest.shedAtEventLoopDelayMs`: this process's event loop is saturated, the SDK should back off briefly. */
export function overloaded(retryAfterSeconds: number): ApiError {
  return refusal(`Ingest overloaded; retry after ${retryAfterSeconds} seconds`, {
    "Retry-After": String(retryAfterSeconds),
    "X-Sentry-Rate-Limits": `${retryAfterSeconds}:error:organization:overloaded`,
  });
}
