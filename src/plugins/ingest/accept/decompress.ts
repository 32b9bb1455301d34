import { promisify } from "node:util";
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from "node:zlib";
import { ApiError } from "../../../http/errors.js";
import { tooLarge } from "./errors.js";

type Decoder = (input: Uint8Array, options: ZlibOptions) => Promise<Buffer>;

const gunzipAsync = promisify(gunzip) as Decoder;
const inflateAsync = promisify(inflate) as Decoder;
const inflateRawAsync = promisify(inflateRaw) as Decoder;
const brotliAsync = promisify(brotliDecompress) as Decoder;

/** HTTP "deflate" means zlib-wrapped, but some clients send raw deflate: accept both. */
const inflateLenient: Decoder = async (input, options) => {
  try {
    return await inflateAsync(input, options);
  } catch (error) {
    if ((error as { code?: string }).code !== "Z_DATA_ERROR") throw error;
    return inflateRawAsync(input, options);
  }
};

const DECODERS: Record<string, Decoder> = {
  gzip: gunzipAsync,
  "x-gzip": gunzipAsync,
  deflate: inflateLenient,
  br: brotliAsync,
};

export interface OutputLimit {
  bytes: number;
  /** Names the thing in the 413 detail ("Envelope", "Event"). */
  what: string;
}

/**
 * Undoes `Content-Encoding` (gzip, x-gzip, deflate, br; a comma list is undone last-first).
 * The async zlib calls run off the event loop; `maxOutputLength` makes zlib stop as soon as the
 * output passes the limit, so a decompression bomb costs at most `limit` bytes → 413.
 * Corrupt or truncated input → 400, an unknown encoding → 415.
 */
export async function decompressBody(
  body: Uint8Array,
  contentEncoding: string | null,
  limit: OutputLimit,
): Promise<Uint8Array> {
  let bytes = body;
  for (const encoding of encodingsToUndo(contentEncoding)) bytes = await decodeOne(bytes, encoding, limit);
  if (bytes.byteLength > limit.bytes) throw tooLarge(limit.what, limit.bytes);
  return bytes;
}

function encodingsToUndo(header: string | null): string[] {
  if (!header) return [];
  const encodings = header.split(",").map((encoding) => encoding.trim().toLowerCase());
  return encodings.filter((encoding) => encoding !== "" && encoding !== "identity").reverse();
}

async function decodeOne(input: Uint8Array, encoding: string, limit: OutputLimit): Promise<Uint8Array> {
  const decoder = DECODERS[encoding];
  if (!decoder) throw new ApiError(415, `Unsupported Content-Encoding "${encoding}"`);
  try {
    return await decoder(input, { maxOutputLength: limit.bytes });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limit.what, limit.bytes);
    throw new ApiError(400, `Invalid ${encoding} body: ${(error as Error).message}`);
  }
}
