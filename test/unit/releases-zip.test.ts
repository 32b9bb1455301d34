import { Zip, ZipDeflate, zipSync } from "fflate";
import { constants, deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { type ZipLimits, ZipStreamReader } from "../../src/plugins/releases/artifacts/zip.js";

const MiB = 1024 * 1024;
const limits = { maxEntries: 100, maxBytes: 64 * MiB };
const text = (value: string) => new TextEncoder().encode(value);

/**
 * Reads `archive` through the streaming reader, handed over in pieces of `pieceBytes` (as chunks
 * come from the store), into name → contents; counts the drains and the most bytes any sink held
 * between two drains.
 */
async function readAll(archive: Uint8Array, zipLimits: ZipLimits = limits, pieceBytes = 64 * 1024) {
  const entries = new Map<string, string>();
  let pending = 0;
  let mostPending = 0;
  let drains = 0;
  const reader = new ZipStreamReader(
    zipLimits,
    (name) => {
      const parts: Uint8Array[] = [];
      return {
        write: (data) => {
          parts.push(data.slice());
          pending += data.byteLength;
          mostPending = Math.max(mostPending, pending);
        },
        end: () => entries.set(name, Buffer.concat(parts).toString("utf8")),
      };
    },
    async () => {
      drains += 1;
      pending = 0;
    },
  );
  for (let at = 0; at < archive.byteLength; at += pieceBytes)
    await reader.push(archive.subarray(at, at + pieceBytes), at + pieceBytes >= archive.byteLength);
  return { entries, drains, mostPending, unpacked: reader.unpackedBytes };
}

/** Rewrites fields of `name`'s local header in a ZIP fflate built: the lies a hostile bundle tells a streaming reader. */
function lieInLocalHeader(
  archive: Uint8Array,
  name: string,
  lies: { method?: number; originalSize?: number },
): Uint8Array {
  const zip = Buffer.from(archive);
  for (
    let at = zip.indexOf(Buffer.from("PK\x03\x04", "latin1"));
    at >= 0;
    at = zip.indexOf(Buffer.from("PK\x03\x04", "latin1"), at + 4)
  ) {
    if (zip.toString("utf8", at + 30, at + 30 + zip.readUInt16LE(at + 26)) !== name) continue;
    if (lies.method !== undefined) zip.writeUInt16LE(lies.method, at + 8);
    if (lies.originalSize !== undefined) zip.writeUInt32LE(lies.originalSize, at + 22);
    return zip;
  }
  throw new Error(`${name} is not in the archive`);
}

/**
 * A deflated entry that really inflates to `GiB` GiB of zeros from ≈ 1 MiB per GiB, built cheaply:
 * full-flushed DEFLATE pieces concatenate, and a final empty block ends the stream. fflate stores
 * it, then its local header says "deflated, 1 KiB".
 */
function deflateBomb(GiB: number): Uint8Array {
  const piece = deflateRawSync(Buffer.alloc(16 * MiB), { finishFlush: constants.Z_FULL_FLUSH });
  const stream = Buffer.concat([...Array.from({ length: 64 * GiB }, () => piece), Buffer.from([0x03, 0x00])]);
  const zip = zipSync({ "manifest.json": text("{}"), "bomb.bin": [stream, { level: 0 }] });
  return lieInLocalHeader(zip, "bomb.bin", { method: 8, originalSize: 1024 });
}

describe("ZipStreamReader (artifact bundles)", () => {
  it("reads a sentry-cli-like bundle handed over in pieces: manifest and files, stored or deflated, directories left out", async () => {
    const manifest = JSON.stringify({
      org: "acme",
      files: { "files/_/_/app.js": { url: "~/app.js", type: "minified_source" } },
    });
    const map = JSON.stringify({ version: 3, sources: ["app.ts"], mappings: "AAAA;".repeat(10_000) });
    const archive = zipSync({
      "manifest.json": text(manifest),
      "files/": {},
      "files/_/_/app.js": [text("console.log(1)"), { level: 0 }],
      "files/_/_/app.js.map": [text(map), { level: 9 }],
    });
    for (const pieceBytes of [7, 1000, archive.byteLength]) {
      const { entries } = await readAll(archive, limits, pieceBytes);
      expect(Object.fromEntries(entries)).toEqual({
        "manifest.json": manifest,
        "files/_/_/app.js": "console.log(1)",
        "files/_/_/app.js.map": map,
      });
    }
  });

  it("reads entries whose sizes follow their data (data descriptors, as streaming ZIP writers make them)", async () => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((error, chunk) => {
      if (error) throw error;
      parts.push(chunk);
    });
    const files = {
      "manifest.json": "{}",
      "files/_/_/app.js.map": JSON.stringify({ mappings: "AAAA;".repeat(10_000) }),
    };
    for (const [name, content] of Object.entries(files)) {
      const entry = new ZipDeflate(name);
      zip.add(entry);
      entry.push(text(content), true);
    }
    zip.end();
    expect(Object.fromEntries((await readAll(Buffer.concat(parts))).entries)).toEqual(files);
  });

  it("drains after every slice: what sinks hold at once stays bounded (~4 MiB) while 24 MiB of zeros inflate", async () => {
    const archive = zipSync({ "manifest.json": text("{}"), "zeros.bin": [new Uint8Array(24 * MiB), { level: 9 }] });
    const { entries, mostPending, drains, unpacked } = await readAll(archive, limits, 8 * MiB);
    expect(entries.get("zeros.bin")?.length).toBe(24 * MiB);
    expect(unpacked).toBe(24 * MiB + 2);
    expect(drains).toBeGreaterThan(1);
    expect(mostPending).toBeLessThanOrEqual(4 * 1024 * 1032 + 64 * 1024);
  });

  it("refuses more entries than maxEntries, a declared size over what is left of maxBytes, and more real bytes than maxBytes", async () => {
    const many = zipSync(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.js`, text("x")])));
    await expect(readAll(many)).rejects.toThrow("the bundle has more than 100 files; at most 100 are accepted");
    const declared = lieInLocalHeader(zipSync({ "a.bin": text("a") }), "a.bin", { originalSize: 65 * MiB });
    await expect(readAll(declared)).rejects.toThrow(`the bundle unpacks to more than ${64 * MiB} bytes`);
    // Honest headers, each under the limit, together over it.
    const honest = zipSync({
      "a.bin": [new Uint8Array(3 * MiB), { level: 1 }],
      "b.bin": [new Uint8Array(3 * MiB), { level: 1 }],
    });
    await expect(readAll(honest, { maxEntries: 10, maxBytes: 5 * MiB })).rejects.toThrow(
      `the bundle unpacks to more than ${5 * MiB} bytes`,
    );
  });

  it("refuses unsupported compression methods and non-ZIP input", async () => {
    const bzip2 = lieInLocalHeader(zipSync({ "manifest.json": text("{}") }), "manifest.json", { method: 12 });
    await expect(readAll(bzip2)).rejects.toThrow("unsupported ZIP compression method 12 for manifest.json");
    await expect(readAll(text("not a zip archive, but long enough to look for one"))).rejects.toThrow(
      "not a ZIP archive",
    );
  });

  it("stops a zip bomb whose header lies about its size within one slice: no GiBs inflated", async () => {
    const archive = deflateBomb(4); // 4 GiB of zeros from 4 MiB; inflated at ~3 ms per MiB that would be ~12 s
    const started = performance.now();
    await expect(readAll(archive)).rejects.toThrow("bomb.bin inflates to more than the 1024 bytes its header declares");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("refuses a stored entry longer than its header says", async () => {
    const archive = lieInLocalHeader(
      zipSync({ "manifest.json": [new Uint8Array(64 * 1024), { level: 0 }] }),
      "manifest.json",
      { originalSize: 10 },
    );
    await expect(readAll(archive)).rejects.toThrow();
  });
});
