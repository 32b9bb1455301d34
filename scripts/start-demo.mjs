// `npm start`: build the library when dist/ is missing or older than the sources, then run the demo.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const built = join(root, "dist", "index.js");
const stale = !existsSync(built) || statSync(built).mtimeMs < Math.max(newestMtime(join(root, "src")), newestMtime(join(root, "adapters")));
if (stale) {
  process.stderr.write("faultline: building the library (dist/ is missing or out of date)…\n");
  execFileSync(process.execPath, [join(root, "node_modules", "tsup", "dist", "cli-default.js")], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
}
await import("../examples/demo/server.mjs");
