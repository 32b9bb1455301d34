import type { ApiError } from "./errors.js";
import type { Reply } from "./endpoint.js";
import { wireReplyOf, wireToResponse } from "./wire.js";

/** A handler's reply as a Response (for `after` hooks), rendered as on the wire: {@link wireReplyOf}. */
export function replyToResponse(reply: Reply | Response): Response {
  return reply instanceof Response ? reply : wireToResponse(wireReplyOf(reply));
}

/** Sentry-style error body: `{detail, ...extra}` (clients read `detail`). */
export function sentryErrorReply(error: ApiError): Reply {
  return { status: error.status, body: { detail: error.detail, ...error.extra }, headers: error.headers };
}
