// Smoke test of `npm start` (run by hand or in CI: `node scripts/smoke-demo.mjs`). Starts the demo on
// a free port and a fresh embedded-PGlite data directory, checks its pages and seeded data over
// HTTP, stops it with SIGTERM, then starts it again on the same data to check that the seed is
// idempotent: first with the tokens given by environment variables, then twice without, where the
// demo issues its own tokens once and prints the same ones on the next start. The last start names
// `<dir>/data` (the layout of the library and of today's demo): the earlier demo's database in
// `<dir>` is moved into it and everything is kept. Each start must say where its data and tokens
// are, and answer /livez, /readyz and /metrics. Exits 1 with a message on the first failure, after killing what it started.
// The demo has 90 s to answer /health, counted after the build when `npm start` rebuilds dist/.
//
// `npm start` runs npm → sh -c → node. The stop signal goes to the whole process group, as a
// terminal's Ctrl-C or a supervisor does: npm forwards a signal only to its shell, which (dash)
// does not pass it on. POSIX only (process groups).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { demoEventId } from "../examples/demo/mapped-crash.mjs";
import { freePort } from "./free-port.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
const TOKEN = `flu_${"SmokeTest0".repeat(4)}`; // flu_ + 40 letters/digits
const SCIM_TOKEN = `fls_${"SmokeScim0".repeat(4)}`;
const DSN_KEY = "5e0de5e0de5e0de5e0de5e0de5e0de50";
const BUILD_TIMEOUT_MS = 300_000; // when npm start has to rebuild dist/ first
const HEALTH_TIMEOUT_MS = 90_000; // from the start of the demo itself (after any build)
const STOP_TIMEOUT_MS = 15_000;
const EVENT_TIMEOUT_MS = 30_000; // the seeded crash is digested by the demo's worker

const dataDir = mkdtempSync(join(tmpdir(), "faultline-smoke-"));
/** The running `npm start`, so that every way out can kill it. */
let current = null;

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class SmokeFailure extends Error {}
const fail = (message) => {
  throw new SmokeFailure(message);
};
const log = (message) => process.stdout.write(`smoke-demo: ${message}\n`);

function signalGroup(run, signal) {
  try {
    process.kill(-run.child.pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Stops what is still running: SIGTERM (a build in progress stops with it), SIGKILL after 5 s. */
async function cleanUp() {
  const run = current;
  current = null;
  if (run) {
    signalGroup(run, "SIGTERM");
    await Promise.race([run.closed, delay(5000)]);
    signalGroup(run, "SIGKILL");
  }
  rmSync(dataDir, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    process.stderr.write(`smoke-demo: ${signal}, stopping the demo\n`);
    await cleanUp();
    process.exit(1);
  });
}

/** `tokens`: the FAULTLINE_DEMO_TOKEN and _SCIM_TOKEN to set; without, the demo issues its own. */
function start(port, tokens, dir) {
  const { DATABASE_URL: _ignored, ...inherited } = process.env; // always embedded PGlite here
  const child = spawn("npm", ["start"], {
    cwd: root,
    detached: true, // its own process group: npm, its shell and the demo
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...inherited,
      PORT: String(port),
      HOST,
      FAULTLINE_DATA_DIR: dir,
      ...(tokens && { FAULTLINE_DEMO_TOKEN: tokens.token, FAULTLINE_DEMO_SCIM_TOKEN: tokens.scimToken }),
      FAULTLINE_DEMO_DSN_KEY: DSN_KEY,
    },
  });
  const run = { child, output: "", exit: null };
  child.stdout.on("data", (chunk) => (run.output += chunk));
  child.stderr.on("data", (chunk) => (run.output += chunk));
  child.on("error", (error) => (run.exit = { error }));
  child.on("exit", (code, signal) => (run.exit = { code, signal }));
  // "close": every process holding its stdout/stderr (npm, sh, the demo) has exited.
  run.closed = new Promise((resolve) => child.on("close", resolve));
  current = run;
  return run;
}

async function request(base, path, headers = {}) {
  try {
    return await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    fail(`GET ${path} failed: ${error.message}`);
  }
}

async function json(response, path) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    fail(`GET ${path}: expected JSON, got ${response.status} ${text.slice(0, 200)}`);
  }
}

const building = (run) =>
  run.output.includes("faultline: building the library") && !run.output.includes("faultline: built in");

async function waitForHealth(run, base) {
  const buildDeadline = Date.now() + BUILD_TIMEOUT_MS;
  let deadline = Date.now() + HEALTH_TIMEOUT_MS;
  for (;;) {
    if (run.exit) fail(`npm start exited before answering /health (${JSON.stringify(run.exit)})`);
    if (building(run)) {
      if (Date.now() > buildDeadline) fail(`npm start was still building dist/ after ${BUILD_TIMEOUT_MS / 1000} s`);
      deadline = Date.now() + HEALTH_TIMEOUT_MS;
    } else if (Date.now() > deadline) {
      fail(`npm start did not answer /health within ${HEALTH_TIMEOUT_MS / 1000} s`);
    }
    try {
      const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) {
        const body = await json(response, "/health");
        if (body?.ok !== true) fail(`/health answered ${JSON.stringify(body)}, expected {"ok":true}`);
        return;
      }
    } catch (error) {
      if (error instanceof SmokeFailure) throw error;
      // not listening yet
    }
    await delay(250);
  }
}

/** The API and SCIM tokens the demo printed. */
function printedTokens(run) {
  const token = /API token \(every scope\): (flu_\w+)/.exec(run.output)?.[1];
  const scimToken = /SCIM token \(org "demo"\): (fls_\w+)/.exec(run.output)?.[1];
  if (!token || !scimToken) fail(`the demo did not print its API and SCIM tokens:\n${run.output}`);
  return { token, scimToken };
}

/** The checks of one start (`apiTokens`: how many tokens admin has by now); returns what the next start must find unchanged. */
async function check(run, base, port, apiTokens, dir) {
  const { token, scimToken } = printedTokens(run);
  await checkProbes(base);
  const credentials = join(dir, "faultline-demo-credentials.json");
  for (const [what, text] of [
    [
      "store and its location",
      `Storage:                 embedded PGlite in ${dir} (kept across restarts; one process at a time)`,
    ],
    ["credentials file", `Tokens kept in:          ${credentials} (owner-only`],
    ["probe and metrics URLs", `${base}/livez  ${base}/readyz  ${base}/metrics`],
    ["email setting (off without FAULTLINE_SMTP_URL)", "Email:                   off (set FAULTLINE_SMTP_URL="],
  ]) {
    if (!run.output.includes(text)) fail(`the demo did not print its ${what} (${text}):\n${run.output}`);
  }
  const page = await request(base, "/");
  const html = await page.text();
  if (page.status !== 200 || !(page.headers.get("content-type") ?? "").includes("text/html") || !/<html/i.test(html)) {
    fail(`GET / should be the host's HTML page, got ${page.status} ${page.headers.get("content-type")}`);
  }

  const auth = { Authorization: `Bearer ${token}` };
  const installationsPath = "/api/0/organizations/demo/svc-app-installations/";
  const anonymous = await request(base, installationsPath);
  if (anonymous.status !== 401) fail(`GET ${installationsPath} without a token should be 401, got ${anonymous.status}`);
  const installations = await request(base, installationsPath, auth);
  const list = await json(installations, installationsPath);
  if (installations.status !== 200)
    fail(`GET ${installationsPath} with the demo token: ${installations.status} ${JSON.stringify(list)}`);
  const demoApps = Array.isArray(list) ? list.filter((installation) => installation?.app?.slug === "demo-app") : [];
  if (demoApps.length !== 1) fail(`GET ${installationsPath} should list demo-app once, got ${JSON.stringify(list)}`);

  const keysPath = "/api/0/projects/demo/web/keys/";
  const keysResponse = await request(base, keysPath, auth);
  const keys = await json(keysResponse, keysPath);
  const dsn = Array.isArray(keys) ? keys[0]?.dsn?.public : undefined;
  const dsnPattern = new RegExp(`^http://${DSN_KEY}@${HOST.replaceAll(".", "\\.")}:${port}/\\d+$`);
  if (keysResponse.status !== 200 || keys.length !== 1 || !dsnPattern.test(dsn ?? "")) {
    fail(
      `GET ${keysPath} should return one key with DSN http://${DSN_KEY}@${HOST}:${port}/<id>, got ${keysResponse.status} ${JSON.stringify(keys)}`,
    );
  }

  const tokensPath = "/api/0/api-tokens/";
  const tokens = await json(await request(base, tokensPath, auth), tokensPath);
  if (!Array.isArray(tokens) || tokens.length !== apiTokens)
    fail(`admin should have ${apiTokens} API token(s) by now (the demo's), got ${JSON.stringify(tokens)}`);

  const scimPath = "/api/0/organizations/demo/scim/v2/Users";
  const scim = await request(base, scimPath, { Authorization: `Bearer ${scimToken}` });
  if (scim.status !== 200)
    fail(`GET ${scimPath} with the demo SCIM token: ${scim.status} ${(await scim.text()).slice(0, 300)}`);

  // The dashboard (faultline/ui) at /admin/errors, signed in through the host's /login cookie.
  const dashboard = await request(base, "/admin/errors");
  if (
    dashboard.status !== 200 ||
    !(dashboard.headers.get("content-security-policy") ?? "").includes("script-src 'self'") ||
    !/faultline-dashboard/.test(await dashboard.text())
  ) {
    fail(`GET /admin/errors should be the dashboard's page with its CSP, got ${dashboard.status}`);
  }
  let login;
  try {
    login = await fetch(`${base}/login`, { redirect: "manual", signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    fail(`GET /login failed: ${error.message}`);
  }
  const cookie = /demo_session=[0-9a-f]+/.exec(login.headers.get("set-cookie") ?? "")?.[0];
  if (login.status !== 302 || !cookie)
    fail(`GET /login should set the demo session cookie and redirect, got ${login.status}`);
  const bySession = await request(base, installationsPath, { Cookie: cookie });
  if (bySession.status !== 200)
    fail(`GET ${installationsPath} with the /login session cookie should be 200, got ${bySession.status}`);

  for (const [what, text] of [
    ["dashboard URL", `http://${HOST}:${port}/login`],
    ["base URL", `http://${HOST}:${port}`],
    ["API token", token],
    ["DSN", dsn],
    ["SCIM token", scimToken],
    ["curl example", `curl -H "Authorization: Bearer ${token}"`],
  ]) {
    if (!run.output.includes(text)) fail(`the ${what} (${text}) was not printed`);
  }
  const crash = await checkMappedCrash(base, auth);
  return {
    projectId: dsn.slice(dsn.lastIndexOf("/") + 1),
    installation: demoApps[0].uuid,
    crash,
    tokens: { token, scimToken },
  };
}

/** /livez, /readyz and /metrics, mounted by the demo as docs/operations.md shows. */
async function checkProbes(base) {
  const live = await request(base, "/livez");
  const liveBody = await json(live, "/livez");
  if (live.status !== 200 || liveBody?.status !== "ok")
    fail(`GET /livez should be 200 {"status":"ok"}, got ${live.status} ${JSON.stringify(liveBody)}`);
  const ready = await request(base, "/readyz");
  const readyBody = await json(ready, "/readyz");
  if (ready.status !== 200 || readyBody?.status !== "ok" || readyBody?.checks?.database?.status !== "ok") {
    fail(`GET /readyz should be 200 with every check ok, got ${ready.status} ${JSON.stringify(readyBody)}`);
  }
  const metrics = await request(base, "/metrics");
  const text = await metrics.text();
  if (
    metrics.status !== 200 ||
    !(metrics.headers.get("content-type") ?? "").startsWith("text/plain") ||
    !text.includes("# TYPE faultline_http_request_duration_seconds histogram")
  ) {
    fail(
      `GET /metrics should be Prometheus' text exposition with Faultline's metrics, got ${metrics.status} ${metrics.headers.get("content-type")} ${text.slice(0, 200)}`,
    );
  }
}

/** The seeded crash of examples/demo/assets/checkout.min.js, mapped through its uploaded source map. */
async function checkMappedCrash(base, auth) {
  const eventPath = `/api/0/projects/demo/web/events/${demoEventId()}/`;
  const deadline = Date.now() + EVENT_TIMEOUT_MS;
  let response = await request(base, eventPath, auth);
  while (response.status === 404 && Date.now() < deadline) {
    await delay(250);
    response = await request(base, eventPath, auth);
  }
  const event = await json(response, eventPath);
  if (response.status !== 200)
    fail(
      `GET ${eventPath} (the seeded source-mapped crash): ${response.status} ${JSON.stringify(event).slice(0, 300)}`,
    );
  const exception = event.entries?.find((entry) => entry.type === "exception")?.data?.values?.at(-1);
  const top = exception?.stacktrace?.frames?.at(-1);
  const source = readFileSync(join(root, "examples/demo/assets/checkout.js"), "utf8").split("\n");
  const throwLine = source.findIndex((line) => line.includes("throw new Error(`Invalid quantity")) + 1;
  const mapped =
    top?.function === "validateQuantity" &&
    /(^|\/)checkout\.js$/.test(top?.filename ?? "") &&
    top?.lineNo === throwLine &&
    Array.isArray(top?.context) &&
    top.context.some(([line, text]) => line === throwLine && text.includes("throw new Error"));
  if (!mapped)
    fail(
      `the seeded crash's top frame should be mapped to validateQuantity at checkout.js:${throwLine} with source context, got ${JSON.stringify(top)}`,
    );
  if (!/checkout\.min\.js$/.test(exception?.rawStacktrace?.frames?.at(-1)?.filename ?? ""))
    fail(
      `the seeded crash should keep its minified frames in rawStacktrace, got ${JSON.stringify(exception?.rawStacktrace)}`,
    );
  const issuePath = `/api/0/organizations/demo/issues/${event.groupID}/`;
  const issue = await json(await request(base, issuePath, auth), issuePath);
  if (String(issue?.count) !== "1")
    fail(
      `the seeded crash's issue should have exactly one event (seeded once), got count ${JSON.stringify(issue?.count)}`,
    );
  return event.groupID;
}

async function stop(run) {
  process.kill(-run.child.pid, "SIGTERM");
  const closed = await Promise.race([run.closed.then(() => true), delay(STOP_TIMEOUT_MS).then(() => false)]);
  // "close" means no process of the group holds the output pipes any more (the demo included).
  if (!closed) fail(`the demo was still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM`);
  // The demo prints this right before exit(0); npm itself ends with 0 or, its shell having been
  // signalled too, by SIGTERM.
  if (!run.output.includes("faultline demo: stopped"))
    fail('the demo did not shut down cleanly after SIGTERM (no "stopped" line)');
  const { code, signal } = run.exit ?? {};
  if (!(code === 0 || signal === "SIGTERM")) fail(`npm start ended with ${JSON.stringify(run.exit)} after SIGTERM`);
  current = null;
}

/**
 * Revokes the demo's own API token through the API (the one ending like `token`; admin also has
 * the one from the first starts), and checks that it no longer works.
 */
async function revokeToken(base, token) {
  const auth = { Authorization: `Bearer ${token}` };
  const listed = await json(await request(base, "/api/0/api-tokens/", auth), "/api/0/api-tokens/");
  const own = listed.find((entry) => token.endsWith(entry.tokenLastCharacters));
  if (!own) fail(`the demo's own token is not among admin's tokens: ${JSON.stringify(listed)}`);
  const revoked = await fetch(`${base}/api/0/api-tokens/${own.id}/`, {
    method: "DELETE",
    headers: auth,
    signal: AbortSignal.timeout(10_000),
  });
  if (revoked.status !== 204) fail(`DELETE /api/0/api-tokens/${own.id}/ should be 204, got ${revoked.status}`);
  const after = await request(base, "/api/0/api-tokens/", auth);
  if (after.status !== 401) fail(`a revoked token should be refused (401), got ${after.status}`);
}

async function startAndCheck(label, { previous, tokens, apiTokens, beforeStop, dir = dataDir, afterStart }) {
  const port = await freePort(HOST);
  const base = `http://${HOST}:${port}`;
  const startedAt = Date.now();
  const run = start(port, tokens, dir);
  await waitForHealth(run, base);
  afterStart?.(run);
  const seen = await check(run, base, port, apiTokens, dir);
  if (tokens && (seen.tokens.token !== tokens.token || seen.tokens.scimToken !== tokens.scimToken)) {
    fail(`the demo should print the tokens it was given, printed ${JSON.stringify(seen.tokens)}`);
  }
  await beforeStop?.(base, seen);
  if (
    previous &&
    (seen.projectId !== previous.projectId ||
      seen.installation !== previous.installation ||
      seen.crash !== previous.crash)
  ) {
    fail(`the restart changed the seeded data: ${JSON.stringify(previous)} → ${JSON.stringify(seen)}`);
  }
  await stop(run);
  log(`${label}: ok (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
  return seen;
}

try {
  const given = { token: TOKEN, scimToken: SCIM_TOKEN };
  const first = await startAndCheck("first start on a fresh data directory", { tokens: given, apiTokens: 1 });
  await startAndCheck("restart on the same data (idempotent seed)", { previous: first, tokens: given, apiTokens: 1 });
  // Without the variables the demo issues its own tokens once, keeps them owner-only in the data
  // directory, and prints the same ones on the next start instead of issuing more.
  // Its API token is then revoked: the next start issues the kept value again.
  const own = await startAndCheck("restart issuing the demo's own tokens", {
    previous: first,
    apiTokens: 2,
    beforeStop: (base, seen) => revokeToken(base, seen.tokens.token),
  });
  if (own.tokens.token === TOKEN || own.tokens.scimToken === SCIM_TOKEN)
    fail("without the variables the demo should issue tokens of its own");
  const mode = statSync(join(dataDir, "faultline-demo-credentials.json")).mode & 0o777;
  if (mode !== 0o600) fail(`the demo's credentials file should be owner-only (0600), is ${mode.toString(8)}`);
  // Named as today's layout (<dir>/data): the earlier layout's database in <dir> is moved into it.
  const moved = join(dataDir, "data");
  const again = await startAndCheck(
    "restart on <dir>/data, moving an earlier demo's database, keeping the demo's own tokens (the revoked one issued again)",
    {
      previous: first,
      apiTokens: 2,
      dir: moved,
      afterStart: (run) => {
        if (!run.output.includes(`faultline demo: moved the database of an earlier demo from ${dataDir} into ${moved}`))
          fail(`the demo did not say it moved the earlier database:\n${run.output}`);
      },
    },
  );
  if (existsSync(join(dataDir, "PG_VERSION")) || !existsSync(join(moved, "PG_VERSION")))
    fail(`the earlier demo's database should have moved from ${dataDir} into ${moved}`);
  const movedMode = statSync(join(moved, "faultline-demo-credentials.json")).mode & 0o777;
  if (movedMode !== 0o600)
    fail(`the moved credentials file should still be owner-only (0600), is ${movedMode.toString(8)}`);
  if (again.tokens.token !== own.tokens.token || again.tokens.scimToken !== own.tokens.scimToken) {
    fail(
      `a restart should print the same tokens as before: ${JSON.stringify(own.tokens)} → ${JSON.stringify(again.tokens)}`,
    );
  }
  await cleanUp();
  log("passed");
} catch (error) {
  const output = current?.output.trim();
  await cleanUp();
  if (output)
    process.stderr.write(
      `--- npm start output ---\n${output.split("\n").slice(-40).join("\n")}\n------------------------\n`,
    );
  process.stderr.write(
    `smoke-demo: FAILED: ${error instanceof SmokeFailure ? error.message : (error?.stack ?? error)}\n`,
  );
  process.exit(1);
}
