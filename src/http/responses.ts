import type { ApiError } from "./errors.js";
import type { Reply } from "./endpoint.js";

const JSON_TYPE = "application/json; charset=utf-8";

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set("Content-Type", JSON_TYPE);
  return response;
}

/** A handler's reply as a Response: JSON when it has a body, else an empty 204 (or its status). */
export function replyToResponse(reply: Reply | Response): Response {
  if (reply instanceof Response) return reply;
  if (reply.body === undefined) return new Response(null, { status: reply.status ?? 204, headers: reply.headers });
  return jsonResponse(reply.body, reply.status ?? 200, reply.headers);
}

/** Sentry-style error body: `{detail, ...extra}` (clients read `detail`). */
export function renderSentryError(error: ApiError): Response {
  return jsonResponse({ detail: error.detail, ...error.extra }, error.status, error.headers);
}
