// Bundles threaded ingest's worker (src/plugins/ingest/isolation/worker.ts; docs/ingest.md,
// "Isolation") into `<out dir>/ingest-worker.js` (and its source map), one self-contained ESM file with the package's
// dependencies and peers left to node_modules. The worker is found beside the module that starts it: run by
// the package build (tsup's onSuccess, dist/, beside the bundle's chunks) and by the source test
// run's globalSetup (src/plugins/ingest/isolation/, beside pool.ts; gitignored). Not a tsup entry:
// sharing chunks with the main bundle reordered its imports (tsyringe before reflect-metadata).
// Written to a temporary name and renamed, so that a starting worker never reads half a file.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Left to node_modules: what an install has, the package's dependencies and peers (tsup's rule
 * for the main bundle). Anything else the worker reaches (p-retry, a devDependency bundled into
 * the main bundle too: tsup.config.ts) is bundled.
 */
function installedPackages() {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const names = Object.keys({
    ...manifest.dependencies,
    ...manifest.peerDependencies,
    ...manifest.optionalDependencies,
  });
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** Builds `<outDir>/ingest-worker.js` (outDir relative to the repository root) and returns its path. */
export async function buildIngestWorker(outDir) {
  const target = join(resolve(root, outDir), "ingest-worker.js");
  const result = await build({
    entryPoints: [join(root, "src/plugins/ingest/isolation/worker.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: installedPackages(),
    sourcemap: true,
    write: false,
    outfile: target,
  });
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  return target;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await buildIngestWorker(process.argv[2] ?? "dist");
