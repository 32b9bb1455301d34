// Vitest globalSetup: threaded ingest (docs/ingest.md, "Isolation") starts its worker from
// `ingest-worker.js` beside the module that starts it. In the package that is dist/ (tsup.config.ts);
// in the source run the module is src/plugins/ingest/isolation/pool.ts, so the worker is bundled
// here with esbuild beside it (gitignored; ~0.1 s), dependencies left to node_modules. Written to
// a temporary name and renamed, so that a test run starting a worker never reads half a file.
import { renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const isolation = new URL("../../src/plugins/ingest/isolation/", import.meta.url);

export default async function setup(): Promise<void> {
  const target = fileURLToPath(new URL("ingest-worker.js", isolation));
  const result = await build({
    entryPoints: [fileURLToPath(new URL("worker.ts", isolation))],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    write: false,
    outfile: target,
  });
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, result.outputFiles[0]?.contents ?? new Uint8Array());
  renameSync(temporary, target);
}
