// CI smoke test of `npm start`: the demo answers on embedded PGlite, seeds idempotently across a
// restart on the same data directory, and shuts down cleanly on SIGTERM.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const token = `flu_${"smoke".repeat(8)}`;
const dataDir = mkdtempSync(join(tmpdir(), "faultline-smoke-"));

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function fail(message, child) {
  child?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
  process.stderr.write(`smoke-demo: ${message}\n`);
  process.exit(1);
}

async function waitForHealth(base, child, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`the demo exited early with code ${child.exitCode}`, child);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail("the demo did not answer /health within 90 s", child);
}

async function check(base, child) {
  const page = await fetch(`${base}/`);
  if (!(page.headers.get("content-type") ?? "").includes("text/html")) fail("/ did not return HTML", child);
  const auth = { Authorization: `Bearer ${token}` };
  const installations = await fetch(`${base}/api/0/organizations/demo/svc-app-installations/`, { headers: auth });
  const list = await installations.json();
  if (installations.status !== 200 || !list.some((i) => i.app.slug === "demo-app")) fail(`installations: ${installations.status} ${JSON.stringify(list)}`, child);
  const keys = await (await fetch(`${base}/api/0/projects/demo/web/keys/`, { headers: auth })).json();
  if (!/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+$/.test(keys[0]?.dsn?.public ?? "")) fail(`keys: ${JSON.stringify(keys)}`, child);
}

async function runOnce(label) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The command of `npm start`, run directly so that SIGTERM reaches the demo and not npm.
  const child = spawn(process.execPath, ["scripts/start-demo.mjs"], {
    env: { ...process.env, PORT: String(port), FAULTLINE_DATA_DIR: dataDir, FAULTLINE_DEMO_TOKEN: token, DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  await waitForHealth(base, child);
  await check(base, child);
  if (!output.includes(token)) fail(`${label}: the token was not printed`, child);
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 15_000))]);
  if (code !== 0) fail(`${label}: exit after SIGTERM was ${code}`, child);
  process.stdout.write(`smoke-demo: ${label} ok\n`);
}

await runOnce("first start");
await runOnce("restart on the same data (idempotent seed)");
rmSync(dataDir, { recursive: true, force: true });
