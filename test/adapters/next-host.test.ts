import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkRoundTrip } from "./sdk.js";

/**
 * examples/next-host, built with `next build` and served by `next start` (App Router, Turbopack),
 * on the library built from the current sources. It uses its own embedded database, so it runs
 * once: in the PGlite project, not again in the PostgreSQL one.
 */
const root = fileURLToPath(new URL("../..", import.meta.url));
const example = `${root}examples/next-host`;
const dist = `${root}node_modules/.cache/faultline-next-host`;
const token = "flu_nexthostexampletoken0123456789abcdef";
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FAULTLINE_DIST: dist, FAULTLINE_TOKEN: token, DATABASE_URL: "" };

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 300_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) => probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  }));
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)("examples/next-host (next build + next start)", () => {
  let server: ChildProcess | undefined;
  let origin: string;
  let output = "";

  beforeAll(async () => {
    run("npx", ["--no", "--", "tsup", "--no-dts", "--silent", "--out-dir", dist], root);
    run(process.execPath, [`${root}node_modules/next/dist/bin/next`, "build"], example);
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [`${root}node_modules/next/dist/bin/next`, "start", "-p", String(port), "-H", "127.0.0.1"], { cwd: example, env });
    server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await fetch(`${origin}/api/faultline/api/0/organizations/demo/`, { headers: { Authorization: `Bearer ${token}` } }).catch(() => null);
      if (response?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`next start did not come up:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 600_000);

  afterAll(() => {
    server?.kill("SIGTERM");
  });

  it("accepts a real @sentry/node event under /api/faultline and lists the issue through the same prefix", async () => {
    await sdkRoundTrip({ origin, prefix: "/api/faultline", token, organization: "demo", project: "web" });
  });

  it("leaves the host's own route and its JSON body parsing alone", async () => {
    const response = await fetch(`${origin}/api/notes`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"text":"hi"}' });
    expect([response.status, await response.json()]).toEqual([201, { received: { text: "hi" } }]);
  });

  it("answers every method of the catch-all, including HEAD and OPTIONS (CORS preflight for ingest)", async () => {
    const head = await fetch(`${origin}/api/faultline/api/0/organizations/demo/`, { method: "HEAD", headers: { Authorization: `Bearer ${token}` } });
    expect([head.status, await head.text()]).toEqual([200, ""]);
    const preflight = await fetch(`${origin}/api/faultline/api/1/envelope/`, { method: "OPTIONS" });
    expect([preflight.status, preflight.headers.get("access-control-allow-origin")]).toEqual([200, "*"]);
  });
});
