import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { badRequest } from "../../../http/errors.js";

/**
 * What the chunk-upload options advertise. Smaller than Sentry's (8 MiB chunks, 32 MiB requests):
 * a request's body is held in memory while its chunks are checked and stored, and sentry-cli sends
 * `concurrency` requests at once, so these decide what an upload adds to the host's memory
 * (measured with 8 MiB chunks and 32 MiB requests: ~190 MB for a 64 MiB source-map set on
 * embedded PGlite). A bundle needs more requests, not more memory.
 */
export const CHUNK_SIZE = 2 * 1024 * 1024;
export const CHUNKS_PER_REQUEST = 64;
export const MAX_REQUEST_SIZE = CHUNK_SIZE;
export const MAX_FILE_SIZE = 256 * 1024 * 1024;

export const sha1 = (data: Uint8Array) => createHash("sha1").update(data).digest("hex");
const CHECKSUM = /^[0-9a-f]{40}$/;

/**
 * The chunks of a chunk-upload request: multipart parts named `file` (plain) or `file_gzip`
 * (gzip), each part's filename its SHA-1. A checksum that does not match the bytes is refused:
 * the store is content-addressed, so a wrong name would poison every bundle using that chunk.
 */
export async function readChunks(
  raw: Uint8Array,
  contentType: string | null,
): Promise<Array<{ checksum: string; data: Uint8Array }>> {
  if (raw.byteLength === 0) return [];
  if (!contentType?.toLowerCase().startsWith("multipart/form-data"))
    throw badRequest("Chunks must be sent as multipart/form-data");
  let form: FormData;
  try {
    // Not `raw.slice()`: the Response copies its body already (a second copy was one more chunk-sized garbage).
    form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw badRequest("Invalid multipart body");
  }
  const chunks: Array<{ checksum: string; data: Uint8Array }> = [];
  let total = 0;
  for (const [field, value] of form.entries()) {
    if ((field !== "file" && field !== "file_gzip") || typeof value === "string") continue;
    const checksum = value.name.toLowerCase();
    if (!CHECKSUM.test(checksum))
      throw badRequest(`Chunk file name must be its SHA-1 checksum (40 hex digits), got "${value.name.slice(0, 64)}"`);
    let data: Uint8Array = new Uint8Array(await value.arrayBuffer());
    if (field === "file_gzip") {
      try {
        data = gunzipSync(data, { maxOutputLength: CHUNK_SIZE + 1 });
      } catch {
        throw badRequest(`Chunk ${checksum} is not valid gzip (or is larger than ${CHUNK_SIZE} bytes)`);
      }
    }
    if (data.byteLength > CHUNK_SIZE) throw badRequest("Chunk size too large");
    total += data.byteLength;
    if (total > MAX_REQUEST_SIZE) throw badRequest("Request too large");
    if (sha1(data) !== checksum) throw badRequest(`Chunk ${checksum}: the content's SHA-1 does not match its name`);
    chunks.push({ checksum, data });
  }
  if (chunks.length > CHUNKS_PER_REQUEST) throw badRequest("Too many chunks");
  return chunks;
}
