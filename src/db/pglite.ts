import type { PGlite, PGliteOptions } from "@electric-sql/pglite";
import { extractPGliteTemplate, isFreshDataDir, pgliteTemplatePath, readPGliteTemplate } from "./pglite-template.js";

/**
 * PostgreSQL settings of an embedded PGlite, passed at start (after PGlite's own defaults).
 * shared_buffers: PostgreSQL's default of 128 MB is allocated inside PGlite's WebAssembly memory
 * and touched at start, so it is resident from the first query; Faultline's working set on one
 * embedded connection is far smaller, and the data directory's files stay in the OS page cache.
 * 16 MB takes PGlite alone, reopening a data directory, from ~320 MB to ~175 MB resident
 * (docs/operations.md, "Embedded database").
 */
const PGLITE_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: "16MB" };

/**
 * Opens an embedded PGlite: on disk in `dataDir`, or in memory without one. A fresh cluster
 * (a new or empty data directory, or memory) starts from the pre-initialised template shipped
 * with the build when there is one (see pglite-template.ts), instead of running initdb.
 */
export async function createPGlite(dataDir: string | undefined): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const settings = Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const options: PGliteOptions = { dataDir, startParams: [...PGlite.defaultStartParams, ...settings] };
  const template = pgliteTemplatePath();
  if (template && dataDir === undefined) options.loadDataDir = readPGliteTemplate(template);
  // On disk the files are written directly: PGlite's own loadDataDir goes through its in-memory
  // file system and takes ~1 s and ~150 MB more for the same result.
  if (template && dataDir !== undefined && isFreshDataDir(dataDir)) extractPGliteTemplate(template, dataDir);
  // While PGlite compiles and starts its WebAssembly nothing of libuv's is pending (the compile
  // runs on V8's threads), so Node's event loop runs empty — and each time it does, Node blocks
  // until every V8 background task has finished, including the optimising recompiles of the
  // WebAssembly functions PGlite has just run hot. That idled a warm start's main thread for
  // 100–200 ms (docs/performance.md, "Start-up"); a timer held for the duration keeps the loop turning.
  const keepLoopTurning = setInterval(() => {}, 60_000);
  try {
    // One options object: create(undefined, options) would ignore the options.
    return await PGlite.create(options);
  } finally {
    clearInterval(keepLoopTurning);
  }
}
