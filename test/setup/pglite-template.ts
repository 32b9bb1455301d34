import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { installedPGliteVersion } from "../../src/db/pglite-template.js";

/**
 * Vitest global setup: a freshly initialised PGlite cluster, dumped once and kept in
 * node_modules/.cache, so that every embedded database the tests open (each test process's shared
 * PGlite, each new data directory) starts from it instead of running initdb (~3 s of CPU and a
 * second WebAssembly instance for the garbage collector, each time). It holds no Faultline schema:
 * each test migrates what it opens, as before. The built package ships its own (migrated)
 * template; a source checkout has none, hence FAULTLINE_PGLITE_TEMPLATE (src/db/pglite-template.ts).
 */
export default async function setup(): Promise<void> {
  if (process.env.FAULTLINE_PGLITE_TEMPLATE) return;
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const version = installedPGliteVersion();
  if (!version) return; // PGlite's manifest unreadable: every database runs initdb, as before
  const path = join(root, "node_modules", ".cache", "faultline", `pglite-${version}-initdb.tar.gz`);
  if (!existsSync(path)) {
    const pglite = await PGlite.create();
    await pglite.exec("CHECKPOINT"); // the dump then opens without WAL replay
    const dump = await pglite.dumpDataDir("gzip");
    await pglite.close();
    mkdirSync(dirname(path), { recursive: true });
    // Written aside and renamed: a run stopped half-way never leaves a truncated template.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  }
  process.env.FAULTLINE_PGLITE_TEMPLATE = path;
}
