// One command per example host: `npm run example:express`, `example:fastify`, `example:next`.
// Express and Fastify import the package by name (dist/, built here when missing or older than the
// sources); the Next.js host gets a JavaScript-only build of the sources, then `next build` and
// `next start`. PORT (default 3000), DATABASE_URL (default: a throwaway in-memory PGlite) and
// FAULTLINE_TOKEN (a fixed demo token) are passed through.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const examples = { express: "express-host", fastify: "fastify-host", next: "next-host" };
const name = examples[process.argv[2]];
if (!name) {
  process.stderr.write(`usage: node scripts/example.mjs ${Object.keys(examples).join("|")}\n`);
  process.exit(2);
}

function step(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const newest = (dir) =>
  !existsSync(dir)
    ? 0
    : Math.max(
        0,
        ...readdirSync(dir, { withFileTypes: true }).map((e) =>
          e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
        ),
      );

let child;
if (name === "next-host") {
  const dist = join(root, "node_modules/.cache/faultline-next-host");
  const env = { ...process.env, FAULTLINE_DIST: dist, NEXT_TELEMETRY_DISABLED: "1" };
  const next = join(root, "node_modules/next/dist/bin/next");
  step("npx", ["--no", "--", "tsup", "--no-dts", "--silent", "--out-dir", dist]);
  step(process.execPath, [next, "build"], { cwd: join(root, "examples/next-host"), env });
  child = spawn(process.execPath, [next, "start", "-p", process.env.PORT ?? "3000"], {
    cwd: join(root, "examples/next-host"),
    env,
    stdio: "inherit",
  });
} else {
  const built = join(root, "dist/index.js");
  if (
    !existsSync(built) ||
    statSync(built).mtimeMs < Math.max(newest(join(root, "src")), newest(join(root, "adapters")))
  ) {
    process.stderr.write("building the library (dist/ is missing or older than the sources)…\n");
    step("npx", ["--no", "tsup"]);
  }
  child = spawn(process.execPath, [join(root, "examples", name, "server.mjs")], { stdio: "inherit" });
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
