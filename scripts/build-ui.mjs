// Builds the dashboard's single-page app (src/ui/client/) with esbuild into <out dir>/ui-assets/:
// content-hashed file names (served with a year-long immutable cache) and manifest.json, the only
// list of files the handler will serve, with a gzip and a brotli twin of each text file (compressed
// once here at maximum effort, so requests cost no CPU). Run by the package build (tsup's onSuccess, dist/) and by
// the source test run's globalSetup (src/ui/ui-assets/, gitignored). Usable as a module too.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const clientDir = join(root, "src", "ui", "client");

/** Only text compresses; fonts and images are compressed already. */
const COMPRESSIBLE = /\.(js|css|svg|json|map)$/;

/**
 * `<name>.gz` and `<name>.br` beside each compressible file, when smaller than it by a useful
 * margin; the manifest maps name → encoding → file, which the handler picks from by Accept-Encoding.
 */
function compress(target, files) {
  const encodings = {};
  for (const name of files.filter((file) => COMPRESSIBLE.test(file))) {
    const body = readFileSync(join(target, name));
    const variants = {
      br: brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
        },
      }),
      gzip: gzipSync(body, { level: constants.Z_BEST_COMPRESSION }),
    };
    for (const [encoding, compressed] of Object.entries(variants)) {
      // Below ~10 % saved, the decoding costs the browser more than the bytes would.
      if (compressed.byteLength > body.byteLength * 0.9) continue;
      const file = `${name}.${encoding === "gzip" ? "gz" : "br"}`;
      writeFileSync(join(target, file), compressed);
      (encodings[name] ??= {})[encoding] = file;
    }
  }
  return encodings;
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds into `outDir` (the directory that will hold `ui-assets/`); skips when `ifStale` and up to date. */
export async function buildDashboard(outDir, { ifStale = false } = {}) {
  const target = join(resolve(root, outDir), "ui-assets");
  const manifestPath = join(target, "manifest.json");
  if (ifStale && existsSync(manifestPath) && statSync(manifestPath).mtimeMs > newestMtime(clientDir)) return target;
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const result = await build({
    entryPoints: { app: join(clientDir, "main.ts") },
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2020",
    platform: "browser",
    outdir: target,
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const files = Object.keys(result.metafile.outputs).map((path) => relative(target, resolve(root, path)));
  const script = files.find((name) => /^app-[\w-]+\.js$/.test(name));
  const style = files.find((name) => /^app-[\w-]+\.css$/.test(name));
  if (!script || !style) throw new Error(`the dashboard build wrote no app script or stylesheet (${files.join(", ")})`);
  const encodings = compress(target, files);
  writeFileSync(manifestPath, `${JSON.stringify({ script, style, files, encodings }, null, 2)}\n`);
  return target;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  const target = await buildDashboard(process.argv[2] ?? "dist");
  process.stderr.write(`faultline: dashboard built into ${relative(root, target)} in ${Date.now() - started} ms\n`);
}
