import { Zip, ZipDeflate, zipSync } from "fflate";
import { constants, deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readZip } from "../../src/plugins/releases/artifacts/zip.js";

const MiB = 1024 * 1024;
const limits = { maxEntries: 100, maxBytes: 64 * MiB };
const text = (value: string) => new TextEncoder().encode(value);

/**
 * Rewrites fields of `name`'s central-directory header in a ZIP fflate built: the lies a hostile
 * bundle tells (its local header and data stay as they are).
 */
function lieInCentralDirectory(archive: Uint8Array, name: string, lies: { method?: number; originalSize?: number }): Uint8Array {
  const zip = Buffer.from(archive);
  for (let at = zip.lastIndexOf(Buffer.from("PK\x01\x02", "latin1")); at >= 0; at = zip.lastIndexOf(Buffer.from("PK\x01\x02", "latin1"), at - 1)) {
    if (zip.toString("utf8", at + 46, at + 46 + zip.readUInt16LE(at + 28)) !== name) continue;
    if (lies.method !== undefined) zip.writeUInt16LE(lies.method, at + 10);
    if (lies.originalSize !== undefined) zip.writeUInt32LE(lies.originalSize, at + 24);
    return zip;
  }
  throw new Error(`${name} is not in the archive`);
}

/**
 * A deflated entry that really inflates to `GiB` GiB of zeros from ≈ 1 MiB per GiB, built cheaply:
 * full-flushed DEFLATE pieces concatenate, and a final empty block ends the stream. fflate stores
 * it, then the headers say "deflated" (local and central) and the central directory says 1 KiB.
 */
function deflateBomb(GiB: number): Uint8Array {
  const piece = deflateRawSync(Buffer.alloc(16 * MiB), { finishFlush: constants.Z_FULL_FLUSH });
  const stream = Buffer.concat([...Array.from({ length: 64 * GiB }, () => piece), Buffer.from([0x03, 0x00])]);
  const zip = Buffer.from(zipSync({ "manifest.json": text("{}"), "bomb.bin": [stream, { level: 0 }] }));
  for (let at = zip.indexOf(Buffer.from("PK\x03\x04", "latin1")); at >= 0; at = zip.indexOf(Buffer.from("PK\x03\x04", "latin1"), at + 4)) {
    if (zip.toString("utf8", at + 30, at + 30 + zip.readUInt16LE(at + 26)) === "bomb.bin") zip.writeUInt16LE(8, at + 8);
  }
  return lieInCentralDirectory(zip, "bomb.bin", { method: 8, originalSize: 1024 });
}

describe("readZip (artifact bundles)", () => {
  it("reads a sentry-cli-like bundle: manifest and files, stored or deflated, directories left out", () => {
    const manifest = JSON.stringify({ org: "acme", files: { "files/_/_/app.js": { url: "~/app.js", type: "minified_source" } } });
    const map = JSON.stringify({ version: 3, sources: ["app.ts"], mappings: "AAAA;".repeat(10_000) });
    const archive = zipSync({
      "manifest.json": text(manifest),
      "files/": {},
      "files/_/_/app.js": [text("console.log(1)"), { level: 0 }],
      "files/_/_/app.js.map": [text(map), { level: 9 }],
    });
    const entries = readZip(archive, limits);
    expect([...entries.keys()].sort()).toEqual(["files/_/_/app.js", "files/_/_/app.js.map", "manifest.json"]);
    expect(entries.get("manifest.json")?.toString("utf8")).toBe(manifest);
    expect(entries.get("files/_/_/app.js")?.toString("utf8")).toBe("console.log(1)");
    expect(entries.get("files/_/_/app.js.map")?.toString("utf8")).toBe(map);
    expect(Buffer.isBuffer(entries.get("manifest.json"))).toBe(true);
  });

  it("reads entries whose sizes follow their data (data descriptors, as streaming ZIP writers make them)", () => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((error, chunk) => {
      if (error) throw error;
      parts.push(chunk);
    });
    const files = { "manifest.json": "{}", "files/_/_/app.js.map": JSON.stringify({ mappings: "AAAA;".repeat(10_000) }) };
    for (const [name, content] of Object.entries(files)) {
      const entry = new ZipDeflate(name);
      zip.add(entry);
      entry.push(text(content), true);
    }
    zip.end();
    const entries = readZip(Buffer.concat(parts), limits);
    expect(Object.fromEntries([...entries].map(([name, data]) => [name, data.toString("utf8")]))).toEqual(files);
  });

  it("refuses more entries than maxEntries, and a declared total over maxBytes, before inflating anything", () => {
    const many = zipSync(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.js`, text("x")])));
    expect(() => readZip(many, limits)).toThrow("the bundle has more than 100 files; at most 100 are accepted");
    const small = zipSync({ "a.bin": text("a"), "b.bin": text("b") });
    const big = lieInCentralDirectory(lieInCentralDirectory(small, "a.bin", { originalSize: 40 * MiB }), "b.bin", { originalSize: 40 * MiB });
    expect(() => readZip(big, limits)).toThrow(`the bundle unpacks to more than ${64 * MiB} bytes`);
  });

  it("refuses unsupported compression methods and non-ZIP input", () => {
    const bzip2 = lieInCentralDirectory(zipSync({ "manifest.json": text("{}") }), "manifest.json", { method: 12 });
    expect(() => readZip(bzip2, limits)).toThrow("unsupported ZIP compression method 12 for manifest.json");
    expect(() => readZip(text("not a zip archive, but long enough to look for one"), limits)).toThrow();
  });

  it("stops a zip bomb whose central directory lies about its size within one slice: no output past the declared 1 KiB, no GiBs inflated", () => {
    const archive = deflateBomb(4); // 4 GiB of zeros from 4 MiB; inflated at ~3 ms per MiB that would be ~12 s
    const started = performance.now();
    expect(() => readZip(archive, limits)).toThrow("bomb.bin inflates to more than the 1024 bytes its header declares");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("refuses a stored entry longer than its central directory says", () => {
    const archive = lieInCentralDirectory(zipSync({ "manifest.json": [new Uint8Array(64 * 1024), { level: 0 }] }), "manifest.json", { originalSize: 10 });
    expect(() => readZip(archive, limits)).toThrow("manifest.json inflates to more than the 10 bytes its header declares");
  });
});
