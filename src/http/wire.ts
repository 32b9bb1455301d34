import type { Reply } from "./endpoint.js";
import type { HandlerOptions } from "./handler-options.js";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A reply rendered without a web `Response`: status, header pairs and the body's text. Node
 * adapters write it straight to the socket. Building a `Response` (a `Headers` object and a body
 * stream) and reading it back out cost as much as the rest of a small request (~60 µs of an
 * ingest acknowledgement: docs/performance.md, "Where the accept path's CPU goes"), so every JSON
 * and empty reply goes out this way; a handler's own `Response` (streams, files) still goes out as
 * a `Response`.
 */
export interface WireReply {
  readonly status: number;
  /** Header pairs in order; a name may repeat (`Set-Cookie`, `Link`). */
  readonly headers: Array<[string, string]>;
  /** The body's text, or null for none. */
  readonly body: string | null;
}

/** The handler Node adapters prefer: a {@link WireReply} where it can, a `Response` where it must. */
export type WireHandler = (request: Request, options?: HandlerOptions) => Promise<Response | WireReply>;

/**
 * Where a Faultline handler keeps its {@link WireHandler} (a registered symbol: adapters and core
 * may be bundled apart). A handler without one is served through its `Response`.
 */
export const WIRE_HANDLER = Symbol.for("faultline.wireHandler");

export function isWireReply(reply: Response | WireReply): reply is WireReply {
  return !(reply instanceof Response);
}

/** A handler's reply on the wire: JSON when it has a body, else empty with its status (204 by default). */
export function wireReplyOf(reply: Reply): WireReply {
  const headers = headerPairs(reply.headers);
  if (reply.body === undefined) return { status: reply.status ?? 204, headers, body: null };
  const withType = headers.filter(([name]) => name.toLowerCase() !== "content-type");
  withType.push(["Content-Type", JSON_TYPE]);
  return { status: reply.status ?? 200, headers: withType, body: JSON.stringify(reply.body) };
}

/** For callers that need a web `Response` (the public handler, Next.js, `after` hooks). */
export function wireToResponse(reply: WireReply): Response {
  const headers = new Headers();
  for (const [name, value] of reply.headers) headers.append(name, value);
  return new Response(reply.body, { status: reply.status, headers });
}

/** `HeadersInit` in any of its three forms, as ordered pairs (a list goes through `Headers`, which joins repeated names as a `Response` would). */
function headerPairs(init: HeadersInit | undefined): Array<[string, string]> {
  if (init === undefined) return [];
  if (init instanceof Headers) return [...init];
  if (Array.isArray(init)) return [...new Headers(init)];
  return Object.entries(init);
}
