import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** What scripts/build-ui.mjs writes beside the bundle: the only files the dashboard serves. */
const Encoding = z.enum(["br", "gzip"]);
export type Encoding = z.infer<typeof Encoding>;
const Manifest = z.object({
  script: z.string(),
  style: z.string(),
  files: z.array(z.string()),
  /** Pre-compressed twins by file and encoding (a build from before they existed has none). */
  encodings: z.record(z.string(), z.partialRecord(Encoding, z.string())).default({}),
});
export type Manifest = z.infer<typeof Manifest>;

/** One representation of a file: its bytes and a strong ETag of exactly those bytes. */
export interface Variant {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

export interface Asset {
  /** The file as built (no Content-Encoding). */
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  type: string;
  /** Its compressed twins, each with its own ETag (a cache must never hand one for another). */
  encoded: Partial<Record<Encoding, Variant>>;
}

export interface AssetStore {
  manifest: Manifest;
  /** A built file by its exact (hashed) name, or undefined: names never reach the file system. */
  get(name: string): Asset | undefined;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/**
 * The built assets: `ui-assets/` beside this module, which after bundling is beside dist/ui.js
 * (the package build) and in the source tree src/ui/ui-assets/ (the test run's globalSetup).
 */
export function defaultAssetsDir(): string {
  // Not `new URL("./ui-assets/", import.meta.url)`: bundlers (Turbopack in a Next.js app) take that
  // literal for an asset reference and rewrite it; this module's own URL they keep.
  return join(dirname(fileURLToPath(import.meta.url)), "ui-assets");
}

/**
 * Loads every file named by the manifest, and its compressed twins, once (a few hundred KB), so
 * requests never touch the disk.
 */
export async function loadAssets(dir: string): Promise<AssetStore> {
  let raw: string;
  try {
    raw = await readFile(join(dir, "manifest.json"), "utf8");
  } catch {
    throw new Error(
      `faultline/ui: no dashboard build in ${dir} (manifest.json missing). Build the package (npm run build) or run \`node scripts/build-ui.mjs\`.`,
    );
  }
  const manifest = Manifest.parse(JSON.parse(raw));
  const read = async (name: string): Promise<Variant> => {
    if (!/^[\w.-]+$/.test(name)) throw new Error(`faultline/ui: unexpected file name in the manifest: ${name}`);
    const body = new Uint8Array(await readFile(join(dir, name)));
    return { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  };
  const files = new Map<string, Asset>();
  for (const name of manifest.files) {
    const extension = /\.[a-z0-9]+$/.exec(name)?.[0] ?? "";
    const encoded: Asset["encoded"] = {};
    for (const encoding of Encoding.options) {
      const file = manifest.encodings[name]?.[encoding];
      if (file) encoded[encoding] = await read(file);
    }
    files.set(name, { ...(await read(name)), type: TYPES[extension] ?? "application/octet-stream", encoded });
  }
  return { manifest, get: (name) => files.get(name) };
}
