import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decompressBody } from "../../src/plugins/ingest/accept/decompress.js";

const MiB = 1024 * 1024;
const limit = { bytes: MiB, what: "Envelope" };
const payload = Buffer.from('{"dsn":"x"}\n{"type":"event"}\n{"message":"hello"}');
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

async function failure(work: Promise<unknown>): Promise<{ status: number; detail: string }> {
  try {
    await work;
  } catch (error) {
    return error as { status: number; detail: string };
  }
  throw new Error("expected a failure");
}

/** Gzip members may be concatenated: 256 × 16 MiB of zeros ≈ 4 GiB inflated from ≈ 4 MiB. */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(16 * MiB));
  return Buffer.concat(Array.from({ length: 256 }, () => member));
}

describe("decompressBody", () => {
  it("passes an unencoded body through", async () => {
    expect(await decompressBody(payload, null, limit)).toBe(payload);
    expect(text(await decompressBody(payload, "identity", limit))).toBe(payload.toString());
  });

  it("undoes gzip, x-gzip, deflate (zlib and raw) and br", async () => {
    expect(text(await decompressBody(gzipSync(payload), "gzip", limit))).toBe(payload.toString());
    expect(text(await decompressBody(gzipSync(payload), "X-Gzip", limit))).toBe(payload.toString());
    expect(text(await decompressBody(deflateSync(payload), "deflate", limit))).toBe(payload.toString());
    expect(text(await decompressBody(deflateRawSync(payload), "deflate", limit))).toBe(payload.toString());
    expect(text(await decompressBody(brotliCompressSync(payload), "br", limit))).toBe(payload.toString());
  });

  it("undoes stacked encodings last-first", async () => {
    expect(text(await decompressBody(gzipSync(deflateSync(payload)), "deflate, gzip", limit))).toBe(payload.toString());
  });

  it("answers 413 for a body over the limit after decompression, and at exactly the limit accepts it", async () => {
    expect((await decompressBody(gzipSync(Buffer.alloc(MiB)), "gzip", limit)).byteLength).toBe(MiB);
    expect(await failure(decompressBody(gzipSync(Buffer.alloc(MiB + 1)), "gzip", limit))).toMatchObject({
      status: 413,
      detail: "Envelope too large (limit 1 MiB)",
    });
    expect(await failure(decompressBody(Buffer.alloc(MiB + 1), null, limit))).toMatchObject({ status: 413 });
  });

  it("stops a 4 GiB gzip bomb at the limit without inflating it all", async () => {
    const bomb = gzipBomb();
    const peakBefore = process.resourceUsage().maxRSS;
    const started = performance.now();
    const error = await failure(decompressBody(bomb, "gzip", limit));
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ status: 413, detail: "Envelope too large (limit 1 MiB)" });
    // Inflating 4 GiB takes seconds and gigabytes; stopping at 1 MiB takes milliseconds and next to no memory.
    expect(elapsed).toBeLessThan(1000);
    expect((process.resourceUsage().maxRSS - peakBefore) * 1024).toBeLessThan(64 * MiB);
  });

  it("stops deflate and brotli bombs too", async () => {
    const zeros = Buffer.alloc(4 * MiB);
    expect(await failure(decompressBody(deflateSync(zeros), "deflate", limit))).toMatchObject({ status: 413 });
    expect(
      await failure(
        decompressBody(brotliCompressSync(zeros, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }), "br", limit),
      ),
    ).toMatchObject({ status: 413 });
  });

  it("answers 400 for truncated or corrupt input", async () => {
    const gzipped = gzipSync(payload);
    expect(await failure(decompressBody(gzipped.subarray(0, gzipped.length - 10), "gzip", limit))).toEqual(
      expect.objectContaining({ status: 400, detail: "Invalid gzip body: unexpected end of file" }),
    );
    expect(await failure(decompressBody(payload, "gzip", limit))).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/^Invalid gzip body: /),
    });
    expect(await failure(decompressBody(payload, "deflate", limit))).toMatchObject({ status: 400 });
    expect(await failure(decompressBody(new Uint8Array(), "gzip", limit))).toMatchObject({ status: 400 });
  });

  it("answers 415 for an encoding it does not know", async () => {
    expect(await failure(decompressBody(payload, "zstd", limit))).toMatchObject({
      status: 415,
      detail: 'Unsupported Content-Encoding "zstd"',
    });
  });
});
