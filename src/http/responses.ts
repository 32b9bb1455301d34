import type { ApiError } from "./errors.js";
import type { Reply } from "./endpoint.js";

const JSON_TYPE = "application/json; charset=utf-8";

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const text = JSON.stringify(body);
  const response = new Response(text, { status, headers });
  response.headers.set("Content-Type", JSON_TYPE);
  (response as TextCarrier)[JSON_TEXT] = text;
  return response;
}

/** Where a JSON response keeps its text (a registered symbol: adapters and core may be bundled apart). */
const JSON_TEXT = Symbol.for("faultline.jsonText");
type TextCarrier = { [JSON_TEXT]?: string };

/**
 * The JSON text of a response made by {@link jsonResponse} whose body is still unread: adapters
 * send it as is instead of reading the body stream back (a measurable share of a small request).
 */
export function jsonTextOf(response: Response): string | undefined {
  return response.bodyUsed ? undefined : (response as TextCarrier)[JSON_TEXT];
}

/** A handler's reply as a Response: JSON when it has a body, else an empty 204 (or its status). */
export function replyToResponse(reply: Reply | Response): Response {
  if (reply instanceof Response) return reply;
  if (reply.body === undefined) return new Response(null, { status: reply.status ?? 204, headers: reply.headers });
  return jsonResponse(reply.body, reply.status ?? 200, reply.headers);
}

/** Sentry-style error body: `{detail, ...extra}` (clients read `detail`). */
export function sentryErrorReply(error: ApiError): Reply {
  return { status: error.status, body: { detail: error.detail, ...error.extra }, headers: error.headers };
}
