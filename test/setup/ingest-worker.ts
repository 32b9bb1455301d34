// Vitest globalSetup: threaded ingest (docs/ingest.md, "Isolation") starts its worker from
// `ingest-worker.js` beside the module that starts it, which in the source run is
// src/plugins/ingest/isolation/pool.ts: bundled there (gitignored; ~0.1 s) by the script the
// package build uses for dist/.
// @ts-expect-error: plain JavaScript build script without type declarations
import { buildIngestWorker } from "../../scripts/build-ingest-worker.mjs";

export default async function setup(): Promise<void> {
  await (buildIngestWorker as (outDir: string) => Promise<string>)("src/plugins/ingest/isolation");
}
