// Stage 4 of a request: its input, read within the limits and validated against the endpoint's schemas.
import type { z } from "zod";
import type { Logger } from "../../logging/logger.js";
import {
  bodyConsumed,
  bodyTooLarge,
  type ConsumedBody,
  consumedBodyOf,
  parseJsonBody,
  readBodyBytes,
} from "../body.js";
import type { AnyEndpoint } from "../endpoint.js";
import { checkJsonBody } from "../input-policy.js";
import { parseOrThrow } from "../validate.js";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface BodyLimits {
  /** Bytes of a body, unless the endpoint sets its own limit. */
  bodyBytes: number;
  /** Nesting depth of a JSON body. */
  bodyDepth: number;
}

/** A request's body as its endpoint wants it: validated JSON, the raw bytes, or nothing. */
export interface RequestBody {
  body: unknown;
  rawBody: Uint8Array | null;
}

/** Reads request bodies for one instance; warns once about a host body parser that ran first. */
export class BodyReader {
  #warnedConsumed = false;

  constructor(
    private readonly limits: BodyLimits,
    private readonly logger: Logger,
  ) {}

  async read(endpoint: AnyEndpoint, request: Request): Promise<RequestBody> {
    if (!BODY_METHODS.has(request.method) || (!endpoint.body && !endpoint.rawBody))
      return { body: undefined, rawBody: null };
    const limit = endpoint.bodyLimit ?? this.limits.bodyBytes;
    const consumed = consumedBodyOf(request);
    if (consumed) return { body: this.#alreadyParsed(endpoint, request, consumed, limit), rawBody: null };
    const bytes = await readBodyBytes(request, limit);
    if (endpoint.rawBody) return { body: undefined, rawBody: bytes };
    return { body: this.#checkedJson(endpoint, parseJsonBody(bytes)), rawBody: null };
  }

  /** An empty body reads as `{}`; a JSON `null` is a value like any other, refused by an object schema. */
  #checkedJson(endpoint: AnyEndpoint, parsed: unknown): unknown {
    checkJsonBody(parsed, this.limits.bodyDepth);
    return validated(endpoint.body, parsed === undefined ? {} : parsed);
  }

  /**
   * A host's body parser ran first. Its JSON value serves a JSON route (the same policy applies);
   * a route that needs the bytes (ingest) cannot be served: the 500 and one warning name the fix.
   */
  #alreadyParsed(endpoint: AnyEndpoint, request: Request, consumed: ConsumedBody, limit: number): unknown {
    if (!endpoint.rawBody && consumed.parsed !== undefined) {
      if (Number(request.headers.get("content-length") ?? 0) > limit) throw bodyTooLarge(limit);
      return this.#checkedJson(endpoint, consumed.parsed);
    }
    if (!this.#warnedConsumed) {
      this.#warnedConsumed = true;
      const path = new URL(request.url).pathname;
      this.logger.warn(
        { method: request.method, path },
        `faultline: a request body was consumed before Faultline; answered 500 (logged once). ${consumed.fix}`,
      );
    }
    throw bodyConsumed(consumed);
  }
}

/** The value parsed by the schema (a 400 naming what was wrong), or as it is when there is none. */
export function validated(schema: z.ZodType | undefined, value: unknown): unknown {
  return schema ? parseOrThrow(schema, value) : value;
}

/** Query parameters as an object; a repeated key becomes an array. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}
