import { badRequest, type ApiError } from "../../../http/errors.js";

export interface EnvelopeItemHeader extends Record<string, unknown> {
  type: string;
  length?: number;
}

export interface EnvelopeItem {
  header: EnvelopeItemHeader;
  /** Raw bytes: attachments are binary, only some item types are JSON. */
  payload: Uint8Array;
}

export interface Envelope {
  header: Record<string, unknown>;
  items: EnvelopeItem[];
}

const LF = 0x0a;
const CR = 0x0d;
const utf8 = new TextDecoder("utf-8");

export function malformedEnvelope(reason: string): ApiError {
  return badRequest(`Malformed envelope: ${reason}`);
}

/**
 * Parses Sentry's envelope format: a header line, then per item a header line and a payload of
 * exactly `length` bytes, or up to the next newline when `length` is absent. Lenient where SDKs
 * differ: a final newline is optional, blank lines between items are skipped and a `\r` before a
 * newline is dropped. Anything else malformed → 400 naming the problem.
 */
export function parseEnvelope(bytes: Uint8Array): Envelope {
  const reader = new ByteReader(bytes);
  if (reader.restIsBlank()) throw malformedEnvelope("empty envelope");
  const header = parseJsonObject(reader.line(), "envelope header");
  const items: EnvelopeItem[] = [];
  while (!reader.restIsBlank()) {
    const line = reader.line();
    if (line.byteLength === 0) continue;
    items.push(readItem(reader, line, items.length));
  }
  return { header, items };
}

function readItem(reader: ByteReader, headerLine: Uint8Array, index: number): EnvelopeItem {
  const header = parseItemHeader(headerLine, index);
  if (header.length === undefined) return { header, payload: reader.line() };
  if (reader.remaining < header.length) {
    throw malformedEnvelope(
      `item ${index} (${header.type}) declares length ${header.length} but only ${reader.remaining} bytes follow`,
    );
  }
  const payload = reader.take(header.length);
  if (!reader.skipLineEnd())
    throw malformedEnvelope(
      `item ${index} (${header.type}): expected a newline after its ${header.length}-byte payload`,
    );
  return { header, payload };
}

function parseItemHeader(line: Uint8Array, index: number): EnvelopeItemHeader {
  const header = parseJsonObject(line, `item ${index} header`);
  if (typeof header.type !== "string" || header.type === "")
    throw malformedEnvelope(`item ${index} header has no "type"`);
  const length = header.length;
  if (length === undefined || length === null) return { ...header, type: header.type, length: undefined };
  if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
    throw malformedEnvelope(`item ${index} (${header.type}) has an invalid "length"`);
  }
  return { ...header, type: header.type, length };
}

function parseJsonObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    throw malformedEnvelope(`${what} is not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw malformedEnvelope(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** A cursor over the body; slices share its memory (no copies of attachment bytes). */
class ByteReader {
  #position = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.byteLength - this.#position;
  }

  /** Up to the next LF (consumed, not returned) or the end; a trailing CR is dropped. */
  line(): Uint8Array {
    const newline = this.bytes.indexOf(LF, this.#position);
    const end = newline === -1 ? this.bytes.byteLength : newline;
    const line = this.bytes.subarray(
      this.#position,
      end > this.#position && this.bytes[end - 1] === CR ? end - 1 : end,
    );
    this.#position = newline === -1 ? end : end + 1;
    return line;
  }

  take(length: number): Uint8Array {
    const slice = this.bytes.subarray(this.#position, this.#position + length);
    this.#position += length;
    return slice;
  }

  /** Consumes LF or CRLF; true at the end too. False when something else follows. */
  skipLineEnd(): boolean {
    if (this.remaining === 0) return true;
    if (this.bytes[this.#position] === CR && this.bytes[this.#position + 1] === LF) this.#position += 2;
    else if (this.bytes[this.#position] === LF) this.#position += 1;
    else return false;
    return true;
  }

  /** Only whitespace (trailing newlines) left. */
  restIsBlank(): boolean {
    for (let i = this.#position; i < this.bytes.byteLength; i++) {
      const byte = this.bytes[i];
      if (byte !== LF && byte !== CR && byte !== 0x20 && byte !== 0x09) return false;
    }
    return true;
  }
}
