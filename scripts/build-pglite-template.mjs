// Part of the build (tsup's onSuccess, so `npm run build` and `npm start` both run it): dumps a
// PGlite cluster, freshly initialised and migrated (default schema, default plugins), to
// <out dir>/pglite-template-<pglite version>.tar.gz (the build's output directory, given as the
// first argument; dist/ by default). An embedded Faultline starts a new data directory
// (or an in-memory database) from it instead of running initdb and every migration: see
// src/db/pglite-template.ts. Other schemas or plugins are migrated on top at start, as usual.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";

const root = fileURLToPath(new URL("..", import.meta.url));
const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"));
const outDir = resolve(root, process.argv[2] ?? "dist");
const target = join(outDir, `pglite-template-${version}.tar.gz`);
const { createFaultline } = await import(join(outDir, "index.js"));

// A PGlite of our own (not `{ dataDir }`), so that this never starts from an older template.
const pglite = await PGlite.create();
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const faultline = createFaultline({ database: pglite, logger: quiet, worker: false });
await faultline.migrate();
await faultline.close();
// A checkpoint first: the dump then needs no WAL replay when it is opened.
await pglite.exec("CHECKPOINT");
const dump = await pglite.dumpDataDir("gzip");
await pglite.close();
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, Buffer.from(await dump.arrayBuffer()));
process.stderr.write(
  `faultline: PGlite ${version} template written, migrated (${(dump.size / 2 ** 20).toFixed(1)} MiB)\n`,
);
