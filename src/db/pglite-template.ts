import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

/**
 * A PGlite cluster freshly initialised and migrated (default schema, default plugins), dumped at
 * build time with PGlite's `dumpDataDir("gzip")` next to the bundle (`dist/`, see
 * scripts/build-pglite-template.mjs). Starting from it skips initdb, which costs a fresh data
 * directory ~2 s and leaves a second WebAssembly instance (~450 MB) to the garbage collector, and
 * the first migration run; another schema or other plugins are migrated on top as usual.
 *
 * Named after the PGlite version that made it: a data directory is only valid for the PGlite
 * build that wrote it, so with any other version installed there is no template and PGlite runs
 * initdb as usual. Run from the sources (tests) there is none either.
 */
export function pgliteTemplatePath(): string | undefined {
  // Another dump to start from, made by the same PGlite version (docs/operations.md): Faultline's
  // own source test run sets it (test/setup/), as a source checkout has no build output.
  const given = process.env.FAULTLINE_PGLITE_TEMPLATE;
  if (given) return given;
  const version = installedPGliteVersion();
  if (!version) return undefined;
  const path = fileURLToPath(new URL(`./${pgliteTemplateFileName(version)}`, import.meta.url));
  return existsSync(path) ? path : undefined;
}

function pgliteTemplateFileName(pgliteVersion: string): string {
  return `pglite-template-${pgliteVersion}.tar.gz`;
}

/** The installed PGlite's version (templates are valid only for the build that wrote them). */
export function installedPGliteVersion(): string | undefined {
  try {
    // The package exports no ./package.json: find it from its entry point (dist/index.cjs).
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
    const manifest = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
      name?: string;
      version?: string;
    };
    return manifest.name === "@electric-sql/pglite" ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `dataDir` holds no cluster yet (PGlite's own test: no PG_VERSION file). */
export function isFreshDataDir(dataDir: string): boolean {
  return !existsSync(join(dataDir, "PG_VERSION"));
}

/**
 * Writes the template's files into `dataDir` (created if missing). PG_VERSION, which marks a
 * cluster as present, is written last: a start interrupted half-way leaves a directory that is
 * still fresh, and the next start writes it again.
 */
export function extractPGliteTemplate(templatePath: string, dataDir: string): void {
  const root = resolve(dataDir);
  mkdirSync(root, { recursive: true });
  let marker: Buffer | undefined;
  for (const entry of readTar(gunzipSync(readFileSync(templatePath)))) {
    const target = resolve(root, `.${sep}${entry.name}`);
    if (target !== root && !target.startsWith(root + sep))
      throw new Error(`PGlite template entry outside the data directory: ${entry.name}`);
    if (entry.type === "directory") mkdirSync(target, { recursive: true });
    else if (entry.name.replace(/^\/+/, "") === "PG_VERSION") marker = entry.content;
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, entry.content, { mode: entry.mode });
    }
  }
  if (!marker) throw new Error(`The PGlite template ${templatePath} holds no PG_VERSION`);
  writeFileSync(join(root, "PG_VERSION"), marker);
}

/** The template's gzipped tar, for an in-memory PGlite's `loadDataDir`. */
export function readPGliteTemplate(templatePath: string): Blob {
  return new Blob([readFileSync(templatePath)]);
}

interface TarEntry {
  name: string;
  type: "file" | "directory";
  mode: number;
  content: Buffer;
}

/**
 * The entries of a ustar archive as PGlite's dumpDataDir writes it: regular files and
 * directories. node:zlib gunzips; tar itself has no reader in Node, and this one has no other
 * caller, so it is read here rather than adding a dependency for ~20 lines.
 */
function* readTar(archive: Buffer): Generator<TarEntry> {
  const BLOCK = 512;
  for (let offset = 0; offset + BLOCK <= archive.length;) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return; // end-of-archive blocks
    const field = (start: number, length: number) =>
      header.toString("utf8", start, start + length).replace(/\0.*$/s, "");
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const mode = Number.parseInt(field(100, 8).trim() || "644", 8) & 0o777;
    const flag = field(156, 1);
    const start = offset + BLOCK;
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === "5") yield { name, type: "directory", mode, content: Buffer.alloc(0) };
    else if (flag === "0" || flag === "")
      yield { name, type: "file", mode: mode || 0o600, content: archive.subarray(start, start + size) };
    else throw new Error(`Unexpected entry type "${flag}" for ${name} in the PGlite template`);
  }
}
