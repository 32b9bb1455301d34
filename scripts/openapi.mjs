// `npm run openapi`: writes docs/openapi.json, the OpenAPI 3.1 document generated from the endpoint
// definitions. `npm run openapi:check` (CI) fails when the committed file is out of date.
// The current sources are built (JavaScript only, a few seconds) into node_modules/.cache first.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// One directory per run: checkouts sharing a node_modules (git worktrees) must not build over each other.
const out = `${root}node_modules/.cache/faultline-openapi-${process.pid}`;
const target = `${root}docs/openapi.json`;
const check = process.argv.includes("--check");

const build = spawnSync("npx", ["--no", "--", "tsup", "--no-dts", "--silent", "--out-dir", out], {
  cwd: root,
  stdio: ["ignore", "pipe", "inherit"],
});
if (build.status !== 0) {
  process.stderr.write(build.stdout ?? "");
  process.stderr.write("openapi: building the sources failed\n");
  process.exit(1);
}

const { createFaultline } = await import(pathToFileURL(`${out}/index.js`).href);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const faultline = createFaultline({ database: "memory://", worker: false, logger: quiet });
// Asked of the instance itself, so the file is exactly what GET /api/0/openapi.json serves.
const response = await faultline.handler(new Request("http://localhost:3000/api/0/openapi.json"));
const text = `${JSON.stringify(await response.json(), null, 2)}\n`;
await faultline.close();
rmSync(out, { recursive: true, force: true });

if (!check) {
  writeFileSync(target, text);
  process.stdout.write(`openapi: wrote docs/openapi.json\n`);
} else if (readFileSync(target, "utf8") !== text) {
  process.stderr.write("openapi: docs/openapi.json is out of date; run `npm run openapi` and commit it\n");
  process.exit(1);
} else {
  process.stdout.write("openapi: docs/openapi.json is up to date\n");
}
