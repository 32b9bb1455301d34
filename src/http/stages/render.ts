// Stage 6 of a request: the reply as it leaves, errors included.
import type { Span } from "@opentelemetry/api";
import { isConnectionFailure, isDataException, MigrationsPendingError } from "../../db/errors.js";
import type { Logger } from "../../logging/logger.js";
import { SPAN_STATUS_ERROR } from "../../observability/tracing.js";
import type { ErrorRenderer } from "../../plugin/plugin.js";
import type { Reply } from "../endpoint.js";
import { ApiError } from "../errors.js";
import { sentryErrorReply } from "../responses.js";
import { type WireReply, wireReplyOf } from "../wire.js";

/** Seconds a client waits before retrying a request that met a database outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The route label of a request that matched no route. */
export const UNMATCHED = "unmatched";

/**
 * Any error as the client's answer: a database outage or pending migrations are a 503 with
 * `Retry-After`, a value the database refused a 400, anything unexpected a logged 500 with the
 * request id; a plugin's renderer (SCIM's) formats the errors of its paths.
 */
export function errorReply(
  error: unknown,
  path: string,
  requestId: string,
  logger: Logger,
  renderers: readonly ErrorRenderer[],
): Reply | Response {
  const apiError = toApiError(error, requestId, logger);
  const renderer = renderers.find((candidate) => candidate.matches(path));
  return renderer ? renderer.render(apiError, requestId) : sentryErrorReply(apiError);
}

function toApiError(error: unknown, requestId: string, logger: Logger): ApiError {
  if (isConnectionFailure(error)) {
    // An outage passes: the client is told when to come back (Sentry SDKs pause sending for Retry-After).
    logger.warn({ err: error, errorId: requestId }, "faultline: the database is unreachable; answered 503");
    return new ApiError(
      503,
      "The database is temporarily unavailable; retry later",
      { errorId: requestId },
      { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
    );
  }
  if (error instanceof MigrationsPendingError) {
    // A deploy that has not run `faultline migrate` yet: unavailable, not broken; ready() retries on the next request.
    logger.warn({ err: error, pending: error.pending }, "faultline: migrations pending; answered 503");
    return new ApiError(
      503,
      error.message,
      { errorId: requestId, pendingMigrations: error.pending },
      { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
    );
  }
  if (isDataException(error)) {
    // Backstop of the input policy: still logged as an error, since the policy should have caught it.
    logger.error({ err: error, errorId: requestId }, "faultline: the database refused a request value");
    return new ApiError(400, "Invalid request: a value was refused by the database", { errorId: requestId });
  }
  if (error instanceof ApiError) return error;
  logger.error({ err: error, errorId: requestId }, "faultline: unexpected error");
  return new ApiError(500, "Internal Error", { errorId: requestId });
}

/** The reply as it leaves the pipeline: with its request id, and without a body for HEAD. */
export function finish(reply: Reply | Response, requestId: string, head: boolean): Response | WireReply {
  if (!(reply instanceof Response)) {
    const wire = wireReplyOf(reply);
    wire.headers.push(["X-Request-Id", requestId]);
    return head ? { ...wire, body: null } : wire;
  }
  const response = withHeader(reply, "X-Request-Id", requestId);
  return head ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

/** Headers of a Response from elsewhere may be immutable; copy it when they are. */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}

/** HTTP semantic conventions: `{method} {route}` as the name (the raw path would make one name per URL). */
export function describeSpan(
  span: Span,
  method: string,
  template: string,
  url: URL,
  status: number,
  requestId: string,
): void {
  if (template !== UNMATCHED) {
    span.updateName(`${method} ${template}`);
    span.setAttribute("http.route", template);
  }
  span.setAttributes({
    "http.response.status_code": status,
    "url.path": url.pathname,
    "faultline.request_id": requestId,
  });
  if (status >= 500) span.setStatus({ code: SPAN_STATUS_ERROR });
}
