// The demo host: a small "existing product" (its own / and /health) with Faultline mounted at the
// root, on embedded PGlite persisted in .faultline/ (or PostgreSQL with DATABASE_URL).
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import express from "express";
import { createFaultline, SCOPES } from "faultline";
import { faultlineExpress } from "faultline/express";

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? "127.0.0.1";
const baseUrl = `http://${host}:${port}`;

function retryDelays() {
  const raw = process.env.FAULTLINE_RETRY_DELAYS;
  if (!raw) return undefined;
  const delays = raw.split(",").map((part) => Number(part.trim()));
  if (delays.some((n) => !Number.isFinite(n) || n < 0)) {
    process.stderr.write(`FAULTLINE_RETRY_DELAYS must be comma-separated seconds, got "${raw}"\n`);
    process.exit(1);
  }
  return delays;
}

function database() {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const dataDir = resolve(process.env.FAULTLINE_DATA_DIR ?? ".faultline");
  mkdirSync(dataDir, { recursive: true });
  return { dataDir };
}

const faultline = createFaultline({
  database: database(),
  publicUrl: baseUrl,
  // Development setting: the demo may deliver webhooks to loopback and private addresses.
  delivery: { allowPrivateNetworks: true, ...(retryDelays() && { retryDelays: retryDelays() }) },
});

/** Runs a create that may already have happened on an earlier start (409 = already there). */
async function ensure(create) {
  try {
    return await create();
  } catch (error) {
    if (error?.status === 409) return null;
    throw error;
  }
}

async function seed() {
  const { api } = faultline;
  if (!(await api.organizations.get("demo"))) {
    await api.organizations.create({ slug: "demo", name: "Demo", plan: "business", samlConfigured: true, scimEnabled: true });
  }
  if (!(await api.projects.get("demo", "web"))) {
    await api.projects.create({ organization: "demo", slug: "web", name: "Web", platform: "node", features: ["servicehooks"], publicKey: process.env.FAULTLINE_DEMO_DSN_KEY });
  }
  const admin = (await api.users.get("admin")) ?? (await api.users.create({ username: "admin", email: "admin@demo.test", name: "Ada Admin" }));
  await api.members.add({ organization: "demo", user: admin.id, role: "owner" });
  await ensure(() => api.teams.create({ organization: "demo", slug: "backend", name: "Backend" }));
  await api.teams.addMember({ organization: "demo", team: "backend", user: "admin" });
  await ensure(() =>
    api.apps.create({ organization: "demo", name: "Demo App", slug: "demo-app", isInternal: true, scopes: ["event:read", "event:write"], events: ["issue", "error", "comment"] }),
  );
  const token = (await ensure(() => api.tokens.create({ user: "admin", scopes: [...SCOPES], name: "demo", token: process.env.FAULTLINE_DEMO_TOKEN })))?.token ?? process.env.FAULTLINE_DEMO_TOKEN;
  const scimToken =
    (await ensure(() => api.tokens.create({ organization: "demo", kind: "scim", scopes: ["member:admin", "team:admin"], name: "scim", token: process.env.FAULTLINE_DEMO_SCIM_TOKEN })))?.token ??
    process.env.FAULTLINE_DEMO_SCIM_TOKEN;
  const [key] = await api.projects.keys("demo", "web");
  return { token, scimToken, dsn: key?.dsn.public };
}

const app = express();
app.get("/", (_req, res) => {
  res.type("html").send(`<!doctype html><html><head><title>Demo product</title></head><body>
<h1>An existing product, with Faultline inside</h1>
<p>This Express app has its own routes (<a href="/health">/health</a>) and mounts Faultline's Sentry-compatible API at the root.</p>
<ul><li><code>GET /api/0/organizations/demo/</code></li><li><code>GET /api/0/organizations/demo/issues/</code></li><li><code>POST /api/&lt;project id&gt;/envelope/</code> (Sentry SDKs)</li></ul>
</body></html>`);
});
app.get("/health", (_req, res) => res.json({ ok: true }));
app.use(faultlineExpress(faultline));

await faultline.ready();
const seeded = await seed();
const server = app.listen(port, host, () => {
  process.stdout.write(
    [
      "",
      `Faultline demo running at ${baseUrl}`,
      `  API token (every scope): ${seeded.token}`,
      `  DSN (project "web"):     ${seeded.dsn}`,
      `  SCIM token (org "demo"): ${seeded.scimToken}`,
      "",
      "Try:",
      `  curl -H "Authorization: Bearer ${seeded.token}" ${baseUrl}/api/0/organizations/demo/svc-app-installations/`,
      "",
    ].join("\n"),
  );
});

let stopping = false;
async function shutdown(signal) {
  if (stopping) process.exit(1); // a second signal forces the exit
  stopping = true;
  process.stderr.write(`\n${signal}: shutting down…\n`);
  server.closeAllConnections?.();
  await new Promise((done) => server.close(done));
  await faultline.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
