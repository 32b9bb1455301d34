// `npm start`: build the library when dist/ is missing or older than the sources, then run the demo
// (examples/demo/server.mjs, which imports the package by its own name through dist/).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The newest modification time of any file under `dir` (0 when there is none). */
function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const built = join(root, "dist", "index.js");
const sources = Math.max(newestMtime(join(root, "src")), newestMtime(join(root, "adapters")));
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  process.stderr.write("faultline: building the library (dist/ is missing or older than src/ or adapters/)…\n");
  const startedAt = Date.now();
  // --no: never download (tsup is a devDependency). Its progress is shown only when it fails.
  const build = spawnSync("npx", ["--no", "tsup"], { cwd: root, stdio: ["ignore", "pipe", "inherit"], shell: process.platform === "win32" });
  if (build.status !== 0) {
    process.stderr.write(build.stdout ?? "");
    process.stderr.write(`faultline: the build failed (${build.error?.message ?? `npx tsup exited with ${build.status ?? build.signal}`})\n`);
    process.exit(1);
  }
  process.stderr.write(`faultline: built in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
}

await import("../examples/demo/server.mjs");
