// The demo host: a small "existing product" (its own / and /health) with Faultline mounted at the
// root, on embedded PGlite persisted in .faultline/data, where the library keeps it by default (or
// PostgreSQL with DATABASE_URL).
// Started by `npm start` (scripts/start-demo.mjs); see docs/getting-started.md.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import express from "express";
import { createFaultline, SCOPES } from "faultline";
import { toExpressHandler } from "faultline/express";
import { sendWebResponse } from "faultline/node";
import { createDashboard } from "faultline/ui";
import { seedMappedCrash } from "./mapped-crash.mjs";

/** An environment variable, with "" meaning unset. */
const env = (name) => process.env[name] || undefined;

function exitWith(message) {
  process.stderr.write(`faultline demo: ${message}\n`);
  process.exit(1);
}

// --- configuration, validated before anything is opened -------------------------------------

const port = Number(env("PORT") ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) exitWith(`PORT must be a port number, got "${process.env.PORT}"`);
const host = env("HOST") ?? "127.0.0.1";
const baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

const dsnKey = env("FAULTLINE_DEMO_DSN_KEY");
if (dsnKey !== undefined && !/^[0-9a-f]{32}$/.test(dsnKey)) exitWith("FAULTLINE_DEMO_DSN_KEY must be 32 lowercase hex characters");

/** FAULTLINE_RETRY_DELAYS: comma-separated seconds between webhook delivery attempts. */
function retryDelays() {
  const raw = env("FAULTLINE_RETRY_DELAYS");
  if (raw === undefined) return undefined;
  const parts = raw.split(",").map((part) => part.trim());
  const delays = parts.map(Number);
  if (parts.some((part) => part === "") || delays.some((n) => !Number.isFinite(n) || n < 0 || n > 7 * 86_400) || delays.length > 50) {
    exitWith(`FAULTLINE_RETRY_DELAYS must be up to 50 comma-separated numbers of seconds (0 to 604800), got "${raw}"`);
  }
  return delays;
}

/**
 * The embedded database's directory; undefined with DATABASE_URL. The library's default layout
 * (.faultline/data), so that `npx faultline <command> --data-dir .faultline/data` and a host with
 * default options find the same database as the demo.
 */
const dataDir = env("DATABASE_URL") ? undefined : resolve(env("FAULTLINE_DATA_DIR") ?? ".faultline/data");

/** Files only the demo writes into its data directory: they mark a directory as an earlier demo's. */
const DEMO_FILES = ["faultline-demo-credentials.json", "faultline-demo-seeded"];

/**
 * Demos before #27 kept the database in .faultline/ itself. When `dataDir` is a new `…/data` and
 * its parent is such a demo's database, the parent's files move into it (PG_VERSION, which marks a
 * database as present, last: an interrupted move leaves `dataDir` fresh and the next start
 * finishes it). Nothing is copied; the data, its tokens and the seed are kept.
 */
function moveEarlierDemoData() {
  const parent = dirname(dataDir);
  if (basename(dataDir) !== "data" || existsSync(join(dataDir, "PG_VERSION")) || !existsSync(join(parent, "PG_VERSION"))) return;
  // A database, but not the demo's: left alone. (The demo's files already in `dataDir`: a move
  // that was interrupted, finished now.)
  if (!DEMO_FILES.some((name) => existsSync(join(parent, name)) || existsSync(join(dataDir, name)))) return;
  mkdirSync(dataDir, { recursive: true });
  for (const name of readdirSync(parent)) {
    if (name !== "data" && name !== "PG_VERSION") renameSync(join(parent, name), join(dataDir, name));
  }
  renameSync(join(parent, "PG_VERSION"), join(dataDir, "PG_VERSION"));
  process.stderr.write(`faultline demo: moved the database of an earlier demo from ${parent} into ${dataDir} (the layout the library and \`faultline --data-dir\` use)\n`);
}

function database() {
  if (!dataDir) return env("DATABASE_URL");
  moveEarlierDemoData();
  mkdirSync(dataDir, { recursive: true });
  return { dataDir };
}

/** A path as short as it is clear: relative below the working directory, absolute elsewhere. */
function shownPath(path) {
  const below = relative(process.cwd(), path);
  return below && !below.startsWith("..") && !isAbsolute(below) ? below : path;
}

/** Where the data is, for the start-up banner (never a password). */
function describeStorage() {
  if (dataDir) return `embedded PGlite in ${dataDir} (kept across restarts; one process at a time)`;
  try {
    const url = new URL(env("DATABASE_URL"));
    return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname} (DATABASE_URL), schema faultline`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}

// --- the host's own "session": /login signs the visitor in as the seeded admin ---------------
// A stand-in for a real product's sign-in. The dashboard has no login of its own: its API calls
// carry this cookie, and the authenticate hook below maps it to a Faultline user.

const SESSION_COOKIE = "demo_session";
const sessionSecret = randomBytes(24).toString("hex"); // new each start: restarting signs everyone out
let adminUserId; // set once the seed has run

function hasSession(request) {
  const value = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([0-9a-f]+)`).exec(request.headers.get("cookie") ?? "")?.[1];
  return value !== undefined && value.length === sessionSecret.length && timingSafeEqual(Buffer.from(value), Buffer.from(sessionSecret));
}

/** Cookie → the admin; state-changing requests only from this origin (Faultline does no CSRF check). */
function authenticate(request) {
  if (!adminUserId || !hasSession(request)) return null;
  if (!["GET", "HEAD", "OPTIONS"].includes(request.method) && request.headers.get("origin") !== new URL(request.url).origin) return null;
  return { userId: adminUserId, scopes: [...SCOPES] };
}

const delays = retryDelays();
/** Email when FAULTLINE_SMTP_URL is set (a local Mailpit or smtp4dev, say): alerts and workflow notifications. */
const smtpUrl = process.env.FAULTLINE_SMTP_URL;
const emailFrom = process.env.FAULTLINE_EMAIL_FROM ?? "Faultline demo <faultline@localhost>";
/** The SMTP URL as printed: its password hidden. */
function shownSmtpUrl(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}
let faultline;
try {
  faultline = createFaultline({
    database: database(),
    publicUrl: baseUrl,
    authenticate,
    // Development setting: the demo may deliver webhooks to loopback and private addresses.
    delivery: { allowPrivateNetworks: true, ...(delays && { retryDelays: delays }) },
    notifications: {
      dashboardUrl: `${baseUrl}/admin/errors`,
      ...(smtpUrl && { email: { url: smtpUrl, from: emailFrom } }),
    },
  });
} catch (error) {
  exitWith(error instanceof Error ? error.message : String(error));
}

// --- shutdown: registered first, so a Ctrl-C during start-up still closes the database ------

let server;
let stopping = false;
let firstSignalAt = 0;
async function shutdown(signal) {
  if (stopping) {
    // A second signal forces the exit. One arriving within a second is the same stop delivered
    // twice (a terminal or supervisor signals the process group, and npm forwards it as well).
    if (Date.now() - firstSignalAt < 1000) return;
    process.stderr.write(`\n${signal} again: exiting without waiting\n`);
    process.exit(1);
  }
  stopping = true;
  firstSignalAt = Date.now();
  process.stderr.write(`\n${signal}: shutting down…\n`);
  try {
    if (server?.listening) {
      const closed = new Promise((done) => server.close(done));
      server.closeAllConnections(); // idle keep-alive sockets would otherwise hold close() open
      await closed;
    }
    await faultline.close();
  } catch (error) {
    process.stderr.write(`faultline demo: error while shutting down: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
  process.stderr.write("faultline demo: stopped\n");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));

// --- seed: safe to run on every start ---------------------------------------------------------

/** Runs a create that may already have happened on an earlier start (409 = already there). */
async function ensure(create) {
  try {
    return await create();
  } catch (error) {
    if (error?.status === 409) return null;
    throw error;
  }
}

/**
 * Written into the embedded data directory once everything below is there — organization,
 * project, admin, team, app and the source-mapped crash — so it goes when the data does. A later
 * start then skips re-checking each of them: on a just-opened embedded database those checks are
 * first reads of a dozen tables and cost ~150 ms of the start. With DATABASE_URL every start checks.
 */
const seededMark = dataDir && join(dataDir, "faultline-demo-seeded");

/** The organization, project, admin, team and app: each created unless it is already there. */
async function seedStructure() {
  const { api } = faultline;
  if (!(await api.organizations.get("demo"))) {
    await ensure(() => api.organizations.create({ slug: "demo", name: "Demo", plan: "business", samlConfigured: true, scimEnabled: true }));
  }
  if (!(await api.projects.get("demo", "web"))) {
    await ensure(() => api.projects.create({ organization: "demo", slug: "web", name: "Web", platform: "node", features: ["servicehooks"], publicKey: dsnKey }));
  }
  if (!(await api.users.get("admin"))) {
    await ensure(() => api.users.create({ username: "admin", email: "admin@demo.test", name: "Ada Admin" }));
  }
  await api.members.add({ organization: "demo", user: "admin", role: "owner" }); // an upsert
  await ensure(() => api.teams.create({ organization: "demo", slug: "backend", name: "Backend" }));
  await api.teams.addMember({ organization: "demo", team: "backend", user: "admin" }); // no-op when already in
  await ensure(() =>
    api.apps.create({ organization: "demo", name: "Demo App", slug: "demo-app", isInternal: true, scopes: ["event:read", "event:write"], events: ["issue", "error", "comment"] }),
  );
  // Creating an internal app installs it; installing again returns the existing installation, so
  // this also repairs a start that stopped between the two.
  await api.installations.install({ organization: "demo", app: "demo-app" });
}

/**
 * The tokens the demo issued itself, kept owner-only in the embedded data directory: a restart
 * prints the same ones instead of minting two more tokens with every scope on each start (which
 * nothing ever revoked). They go with the data, which holds everything else of the demo anyway.
 * A stored token that was revoked meanwhile is issued again; FAULTLINE_DEMO_TOKEN and
 * FAULTLINE_DEMO_SCIM_TOKEN take precedence and are not stored. With DATABASE_URL nothing is kept.
 */
const credentialsFile = dataDir && join(dataDir, "faultline-demo-credentials.json");

function storedCredentials() {
  if (!credentialsFile || !existsSync(credentialsFile)) return {};
  try {
    const { token, scimToken } = JSON.parse(readFileSync(credentialsFile, "utf8"));
    return { token: typeof token === "string" ? token : undefined, scimToken: typeof scimToken === "string" ? scimToken : undefined };
  } catch {
    return {}; // unreadable: new tokens are issued and the file rewritten
  }
}

/** Issues `wanted` (or a new token) unless that exact token is already there; returns the token. */
async function issueToken(input, wanted) {
  return (await ensure(() => faultline.api.tokens.create({ ...input, token: wanted })))?.token ?? wanted;
}

async function seed() {
  const { api } = faultline;
  const seeded = seededMark !== undefined && existsSync(seededMark) && Boolean(await api.organizations.get("demo"));
  if (!seeded) await seedStructure();

  const stored = storedCredentials();
  const envToken = env("FAULTLINE_DEMO_TOKEN");
  const envScimToken = env("FAULTLINE_DEMO_SCIM_TOKEN");
  const token = await issueToken({ user: "admin", scopes: [...SCOPES], name: "demo" }, envToken ?? stored.token);
  const scimToken = await issueToken({ organization: "demo", kind: "scim", scopes: ["member:admin", "team:admin"], name: "demo scim" }, envScimToken ?? stored.scimToken);
  const keep = { token: envToken ? stored.token : token, scimToken: envScimToken ? stored.scimToken : scimToken };
  if (credentialsFile && (keep.token !== stored.token || keep.scimToken !== stored.scimToken)) {
    writeFileSync(credentialsFile, `${JSON.stringify(keep)}\n`, { mode: 0o600 });
    chmodSync(credentialsFile, 0o600); // mode above applies only to a new file
  }

  adminUserId = Number((await api.users.get("admin")).id);

  const [key] = await api.projects.keys("demo", "web");
  if (dsnKey && key && key.public !== dsnKey) {
    process.stderr.write(`faultline demo: project "web" already has DSN key ${key.public}; FAULTLINE_DEMO_DSN_KEY applies only when it is created\n`);
  }
  return { token, scimToken, key, alreadySeeded: seeded };
}

/**
 * After the first start's seed, once the demo is listening: the source-mapped crash, then the
 * seeded mark. The crash is an event like any other, and events show up after the digest anyway,
 * so the host does not hold its first answer for it (~0.4 s of a first start).
 */
async function seedCrashOnce({ token, key, alreadySeeded }) {
  if (!alreadySeeded && key?.dsn?.public && (await seedCrash(token, key)) && seededMark) {
    writeFileSync(seededMark, "The Faultline demo's organization, project, admin, team, app and source-mapped crash are seeded.\n");
  }
}

/**
 * One source-mapped crash (examples/demo/mapped-crash.mjs); true when it is there. A failure is
 * reported and the demo still starts.
 */
async function seedCrash(token, key) {
  const call = async (method, path, body) => {
    const json = !(body instanceof FormData);
    const response = await faultline.handler(
      new Request(`${baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(json && { "Content-Type": "application/json" }) }, body: json ? JSON.stringify(body) : body }),
    );
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
  const projectId = key.dsn.public.slice(key.dsn.public.lastIndexOf("/") + 1);
  try {
    await seedMappedCrash(faultline, { organization: "demo", project: "web", call, envelopeUrl: `${baseUrl}/api/${projectId}/envelope/?sentry_key=${key.public}` });
    return true;
  } catch (error) {
    process.stderr.write(`faultline demo: could not seed the source-mapped crash: ${error?.message ?? error}\n`);
    return false;
  }
}

// --- the host app -----------------------------------------------------------------------------

const app = express();
app.get("/", (_req, res) => {
  res.type("html").send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Demo product</title></head><body>
<h1>An existing product, with Faultline inside</h1>
<p>This is a small Express app with its own routes (this page and <a href="/health">/health</a>).
Faultline, an embeddable Sentry-compatible error-monitoring API, is mounted at the root of the same app
and shares its process and port. The API answers JSON and needs the token printed by <code>npm start</code>
(<code>Authorization: Bearer flu_…</code>).</p>
<ul>
<li><a href="/login">/login</a> — sign in to the host (as the seeded admin) and open the <a href="/admin/errors">error dashboard</a> at /admin/errors</li>
<li><a href="/health">/health</a> — the host's own health check</li>
<li><a href="/livez">/livez</a>, <a href="/readyz">/readyz</a>, <a href="/metrics">/metrics</a> — Faultline's liveness and readiness probes and Prometheus metrics, mounted by the host</li>
<li><a href="/api/0/organizations/demo/">/api/0/organizations/demo/</a> — the seeded organization</li>
<li><a href="/api/0/organizations/demo/svc-app-installations/">/api/0/organizations/demo/svc-app-installations/</a> — installed apps</li>
<li><a href="/api/0/projects/demo/web/keys/">/api/0/projects/demo/web/keys/</a> — the project's DSN</li>
<li><a href="/api/0/organizations/demo/issues/">/api/0/organizations/demo/issues/</a> — issues</li>
</ul>
<p>See <code>docs/getting-started.md</code> in the repository.</p>
</body></html>`);
});
app.get("/health", (_req, res) => res.json({ ok: true }));
app.get("/login", (_req, res) => {
  res.cookie(SESSION_COOKIE, sessionSecret, { httpOnly: true, sameSite: "strict", path: "/" });
  res.redirect("/admin/errors");
});
// The dashboard (faultline/ui): its own mount path; it calls the API mounted below at the root.
app.use("/admin/errors", toExpressHandler(createDashboard({ apiBasePath: "", organization: "demo" })));
// Probes and metrics as docs/operations.md mounts them: fixed paths of the host, outside the API.
// (A production host keeps /metrics where its Prometheus reaches and the public does not.)
app.get("/livez", async (_req, res) => sendWebResponse(res, await faultline.health.live()));
app.get("/readyz", async (_req, res) => sendWebResponse(res, await faultline.health.ready()));
app.get("/metrics", async (_req, res) => sendWebResponse(res, await faultline.metrics.handler()));
app.use(toExpressHandler(faultline));

function listen() {
  return new Promise((resolveListen, rejectListen) => {
    // Express 5 calls this callback with the error when listening fails (EADDRINUSE, …).
    const listening = app.listen(port, host, (error) => (error ? rejectListen(error) : resolveListen(listening)));
  });
}

try {
  await faultline.ready();
  const seeded = await seed();
  server = await listen();
  process.stdout.write(
    [
      "",
      `Faultline demo running at ${baseUrl}`,
      `  Dashboard:               ${baseUrl}/login (signs you in as the admin, then opens ${baseUrl}/admin/errors)`,
      `  API token (every scope): ${seeded.token}`,
      `  DSN (project "web"):     ${seeded.key?.dsn?.public}`,
      `  SCIM token (org "demo"): ${seeded.scimToken}`,
      `  Storage:                 ${describeStorage()}`,
      credentialsFile
        ? `  Tokens kept in:          ${credentialsFile} (owner-only; printed again on the next start)`
        : "  Tokens kept in:          nowhere (with DATABASE_URL the demo issues new tokens on each start)",
      `  Probes and metrics:      ${baseUrl}/livez  ${baseUrl}/readyz  ${baseUrl}/metrics`,
      smtpUrl
        ? `  Email:                   ${shownSmtpUrl(smtpUrl)} (from ${emailFrom})`
        : "  Email:                   off (set FAULTLINE_SMTP_URL=smtp://host:port to email alerts and workflow notifications)",
      ...(dataDir ? [`  CLI on this database:    npx faultline migrate status --data-dir ${shownPath(dataDir)} (stop the demo first)`] : []),
      "",
      "List the installed apps:",
      `  curl -H "Authorization: Bearer ${seeded.token}" ${baseUrl}/api/0/organizations/demo/svc-app-installations/`,
      "",
      "Ctrl-C stops it; data is kept for the next start.",
      "",
    ].join("\n"),
  );
  // Not awaited in this try: a failure here is reported, and the host keeps serving.
  seedCrashOnce(seeded).catch((error) => process.stderr.write(`faultline demo: could not finish the seed: ${error?.message ?? error}\n`));
} catch (error) {
  // During a shutdown the API answers 503 (closed): shutdown() exits, nothing to report.
  if (!stopping) {
    process.stderr.write(`faultline demo: could not start: ${error?.message ?? error}\n`);
    await faultline.close().catch(() => undefined);
    process.exit(1);
  }
}
