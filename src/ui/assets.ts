import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** What scripts/build-ui.mjs writes beside the bundle: the only files the dashboard serves. */
const Manifest = z.object({ script: z.string(), style: z.string(), files: z.array(z.string()) });
export type Manifest = z.infer<typeof Manifest>;

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
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

/** Loads every file named by the manifest once (a few hundred KB), so requests never touch the disk. */
export async function loadAssets(dir: string): Promise<AssetStore> {
  let raw: string;
  try {
    raw = await readFile(join(dir, "manifest.json"), "utf8");
  } catch {
    throw new Error(`faultline/ui: no dashboard build in ${dir} (manifest.json missing). Build the package (npm run build) or run \`node scripts/build-ui.mjs\`.`);
  }
  const manifest = Manifest.parse(JSON.parse(raw));
  const files = new Map<string, Asset>();
  for (const name of manifest.files) {
    if (!/^[\w.-]+$/.test(name)) throw new Error(`faultline/ui: unexpected file name in the manifest: ${name}`);
    const extension = /\.[a-z0-9]+$/.exec(name)?.[0] ?? "";
    files.set(name, { body: new Uint8Array(await readFile(join(dir, name))), type: TYPES[extension] ?? "application/octet-stream" });
  }
  return { manifest, get: (name) => files.get(name) };
}
