import { ApiError } from "./errors.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function formatLimit(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function bodyTooLarge(limit: number): ApiError {
  return new ApiError(413, `Request body too large (limit ${formatLimit(limit)})`);
}

/**
 * Reads a request's body without going through its web stream: resolves the bytes, or null past
 * `limit`. Adapters over Node requests attach one under {@link READ_BODY}.
 */
export type BodyReader = (limit: number) => Promise<Uint8Array | null>;

/** Where a request carries its {@link BodyReader} (a registered symbol: adapters and core may be bundled apart). */
export const READ_BODY = Symbol.for("faultline.readBody");

/**
 * A body something in the host read before Faultline could (a body parser mounted ahead of it).
 * `parsed` is the JSON value that parser produced, if any: enough for JSON routes, never for routes
 * that need the bytes (ingest: envelopes, compression). `fix` says how to mount Faultline instead.
 */
export interface ConsumedBody {
  readonly parsed?: unknown;
  readonly fix: string;
}

/** Where a request carries its {@link ConsumedBody} (set by the Node adapters; a registered symbol like {@link READ_BODY}). */
export const CONSUMED_BODY = Symbol.for("faultline.consumedBody");

const READ_BEFORE =
  "Something in the host read this request's body before Faultline (a body-parsing middleware). Mount Faultline ahead of it, or pass it the request unread.";

/** The request's body was already read by someone else: how, and what they left. Undefined when it is still there. */
export function consumedBodyOf(request: Request): ConsumedBody | undefined {
  const marked = (request as { [CONSUMED_BODY]?: ConsumedBody })[CONSUMED_BODY];
  if (marked) return marked;
  return request.bodyUsed ? { fix: READ_BEFORE } : undefined;
}

/**
 * The answer when a route needs bytes that are gone: a 500, since only the host's setup can fix
 * it, whose detail names the fix.
 */
export function bodyConsumed(consumed: ConsumedBody): ApiError {
  return new ApiError(
    500,
    `Faultline could not read the request body: it was consumed before Faultline saw it. ${consumed.fix}`,
  );
}

/**
 * Reads the whole body, refusing more than `limit` bytes. A declared Content-Length over the
 * limit is refused before reading; a chunked body is counted as it streams and cut off at the limit.
 */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const consumed = consumedBodyOf(request);
  if (consumed) throw bodyConsumed(consumed);
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) throw bodyTooLarge(limit);
  const direct = (request as { [READ_BODY]?: BodyReader })[READ_BODY];
  if (direct) {
    const bytes = await direct(limit);
    if (!bytes) throw bodyTooLarge(limit);
    return bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

function concatBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Parses a JSON body; an empty body reads as `undefined` (the schema decides if that is allowed). */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `Malformed JSON body: ${(error as Error).message}`);
  }
}
