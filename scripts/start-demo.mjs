// `npm start`: build the library when dist/ is missing, has no PGlite template or is older than the
// sources, then run the demo
// (examples/demo/server.mjs, which imports the package by its own name through dist/).
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The newest modification time of any file under `dir` (0 when there is none). */
function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // src/ui/ui-assets/ is the test run's dashboard build, not a source.
    if (entry.name === "ui-assets") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const built = join(root, "dist", "index.js");
const sources = Math.max(newestMtime(join(root, "src")), newestMtime(join(root, "adapters")));
// The PGlite template a new data directory starts from (written by the build since #19): a dist/
// built before it would work, but start slowly and large.
const hasTemplate =
  existsSync(built) && readdirSync(join(root, "dist")).some((name) => /^pglite-template-.+\.tar\.gz$/.test(name));
// The dashboard's browser bundle (since #18), which the demo mounts at /admin/errors.
const hasDashboard = existsSync(join(root, "dist", "ui-assets", "manifest.json"));
if (!existsSync(built) || statSync(built).mtimeMs < sources || !hasTemplate || !hasDashboard) {
  process.stderr.write(
    "faultline: building the library (dist/ is missing, incomplete or older than src/ or adapters/)…\n",
  );
  const startedAt = Date.now();
  // --no: never download (tsup is a devDependency). Its progress is shown only when it fails. In its
  // own process group on POSIX, so that a stop signal can end npx and tsup together.
  const posix = process.platform !== "win32";
  const build = spawn("npx", ["--no", "tsup"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    detached: posix,
    shell: !posix,
  });
  let progress = "";
  build.stdout.on("data", (chunk) => (progress += chunk));
  let stoppedBy;
  const stopBuild = (signal) => {
    stoppedBy = signal;
    try {
      if (posix) process.kill(-build.pid, signal);
      else build.kill(signal);
    } catch {
      // already gone
    }
  };
  process.on("SIGINT", stopBuild).on("SIGTERM", stopBuild);
  const result = await new Promise((resolve) => {
    build.on("error", (error) => resolve(error.message));
    build.on("close", (code, signal) => resolve(code ?? signal));
  });
  process.off("SIGINT", stopBuild).off("SIGTERM", stopBuild);
  if (stoppedBy) process.exit(stoppedBy === "SIGINT" ? 130 : 143); // dist/ is rebuilt on the next start
  if (result !== 0) {
    process.stderr.write(progress);
    process.stderr.write(`faultline: the build failed (npx tsup: ${result}); \`npm run build\` shows the same\n`);
    process.exit(1);
  }
  process.stderr.write(`faultline: built in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
}

await import("../examples/demo/server.mjs");
