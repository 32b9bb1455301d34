import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.js";
import { sdkRoundTrip } from "../adapters/sdk.js";
import { type Host, INGEST_WORKER_UNUSED, installFreshApp, nextBuild, run, startHost } from "./hosts.js";

const repo = resolve(import.meta.dirname, "../..");
const SUBPATHS = ["faultline", "faultline/express", "faultline/fastify", "faultline/next", "faultline/node", "faultline/testing", "faultline/ui", "faultline/verify"];
const TOKEN = "flu_packedtarballhosttoken0123456789abcd";
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FAULTLINE_TOKEN: TOKEN, DATABASE_URL: "memory://", NODE_ENV: "production" };

/**
 * Fresh host projects, each installing the packed tarball with one major of its framework from the
 * npm registry (`--prefer-offline`: the cache when it has them). One pack, every framework major
 * installed once, installs and `next build`s run side by side.
 */
interface Project {
  type: "module" | "commonjs";
  dependencies: string[];
  files: Record<string, string>;
  /** `next build`, run once installed. */
  build?: boolean;
}

/** Organization "demo", project "web" and an owner's token with every scope; CommonJS or ESM alike (no top-level await). */
const SEED = `
async function seed(faultline) {
  const { api } = faultline;
  if (await api.organizations.get("demo")) return;
  await api.organizations.create({ slug: "demo", name: "Demo" });
  const owner = await api.users.create({ username: "owner", email: "owner@demo.test" });
  await api.members.add({ organization: "demo", user: owner.id, role: "owner" });
  await api.projects.create({ organization: "demo", slug: "web", platform: "node" });
  await api.tokens.create({ user: owner.id, scopes: [...SCOPES], token: process.env.FAULTLINE_TOKEN });
}
`;

/** An existing Express app with a JSON route of its own, Faultline mounted under /faultline and the dashboard (faultline/ui) under /admin/errors. */
const expressHost = (imports: string) => `${imports}
${SEED}
const faultline = createFaultline();
seed(faultline).then(() => {
  const app = express();
  app.post("/api/orders", express.json(), (req, res) => res.status(201).json({ order: req.body }));
  app.use("/faultline", toExpressHandler(faultline));
  app.use("/admin/errors", toExpressHandler(createDashboard({ apiBasePath: "/faultline", organization: "demo" })));
  app.listen(Number(process.env.PORT), "127.0.0.1");
});
`;

/** An existing Fastify app with a JSON route of its own, Faultline registered under /faultline. */
const fastifyHost = (imports: string) => `${imports}
${SEED}
const faultline = createFaultline();
seed(faultline).then(async () => {
  const app = Fastify();
  app.post("/api/orders", async (request, reply) => reply.code(201).send({ order: request.body }));
  await app.register(toFastifyPlugin(faultline), { prefix: "/faultline" });
  await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
});
`;

const ESM_EXPRESS = `import express from "express";\nimport { createFaultline, SCOPES } from "faultline";\nimport { toExpressHandler } from "faultline/express";\nimport { createDashboard } from "faultline/ui";`;
const CJS_EXPRESS = `const express = require("express");\nconst { createFaultline, SCOPES } = require("faultline");\nconst { toExpressHandler } = require("faultline/express");\nconst { createDashboard } = require("faultline/ui");`;
const ESM_FASTIFY = `import Fastify from "fastify";\nimport { createFaultline, SCOPES } from "faultline";\nimport { toFastifyPlugin } from "faultline/fastify";`;
const CJS_FASTIFY = `const Fastify = require("fastify");\nconst { createFaultline, SCOPES } = require("faultline");\nconst { toFastifyPlugin } = require("faultline/fastify");`;

/**
 * A Next.js App Router app: the catch-all route of docs/embedding-next.md, seeded before the first
 * request, the dashboard's route of docs/dashboard.md, plus a route of its own.
 */
const nextApp = (config: string): Record<string, string> => ({
  "next.config.mjs": `export default { ${config}, skipTrailingSlashRedirect: true };\n`,
  "app/api/faultline/[...path]/route.js": `import { createFaultline, SCOPES } from "faultline";
import { getOrCreateFaultline, toNextJsHandler } from "faultline/next";
${SEED}
// Created on the first request, not when \`next build\` imports the module.
const faultline = () =>
  getOrCreateFaultline("main", async () => {
    const instance = createFaultline();
    await seed(instance);
    return instance;
  });
export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD } = toNextJsHandler(faultline, { basePath: "/api/faultline" });
`,
  "app/admin/errors/[[...path]]/route.js": `import { toNextJsHandler } from "faultline/next";
import { createDashboard } from "faultline/ui";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const { GET, HEAD } = toNextJsHandler(createDashboard({ apiBasePath: "/api/faultline", organization: "demo" }), { basePath: "/admin/errors" });
`,
  "app/api/orders/route.js": `export async function POST(request) {\n  return Response.json({ order: await request.json() }, { status: 201 });\n}\n`,
});

const PROJECTS: Record<string, Project> = {
  // Also where the types are checked, ESM and CommonJS: no @types/pg, skipLibCheck off.
  esm: {
    type: "module",
    dependencies: ["express@5", "@types/express@5", "fastify@5", "@types/node@20"],
    files: { "express.js": expressHost(ESM_EXPRESS), "fastify.js": fastifyHost(ESM_FASTIFY) },
  },
  cjs: {
    type: "commonjs",
    dependencies: ["express@4", "fastify@4"],
    files: { "express.js": expressHost(CJS_EXPRESS), "fastify.js": fastifyHost(CJS_FASTIFY) },
  },
  next14: {
    type: "module",
    dependencies: ["next@14", "react@18", "react-dom@18"],
    files: nextApp(`experimental: { serverComponentsExternalPackages: ["@electric-sql/pglite"] }`),
    build: true,
  },
  next15: {
    type: "module",
    dependencies: ["next@15", "react@19", "react-dom@19"],
    files: nextApp(`serverExternalPackages: ["@electric-sql/pglite"]`),
    build: true,
  },
};

const NEXT_START = ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p"];

/**
 * Each host: its project, the command serving it (the port is appended), its Faultline prefix, and
 * where it mounts the dashboard (with `browser`: also loaded in Chromium, once for the whole run).
 */
const HOSTS: Array<{ name: string; project: string; command: string[]; prefix: string; dashboard?: string; browser?: boolean }> = [
  { name: "Express 5, ESM", project: "esm", command: ["express.js"], prefix: "/faultline", dashboard: "/admin/errors", browser: true },
  { name: "Fastify 5, ESM", project: "esm", command: ["fastify.js"], prefix: "/faultline" },
  { name: "Express 4, CommonJS (require)", project: "cjs", command: ["express.js"], prefix: "/faultline", dashboard: "/admin/errors" },
  { name: "Fastify 4, CommonJS (require)", project: "cjs", command: ["fastify.js"], prefix: "/faultline" },
  { name: "Next.js 14 (next build + next start)", project: "next14", command: NEXT_START, prefix: "/api/faultline", dashboard: "/admin/errors" },
  { name: "Next.js 15 (next build + next start)", project: "next15", command: NEXT_START, prefix: "/api/faultline", dashboard: "/admin/errors" },
];

describe("the packed tarball installed into fresh hosts", () => {
  let root = "";
  const dir = (project: string) => join(root, project);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "faultline-packed-"));
    await Promise.all(
      Object.entries(PROJECTS).map(async ([name, project]) => {
        const installed = await installFreshApp(dir(name), { packageJson: { type: project.type }, files: project.files, dependencies: project.dependencies });
        const built = project.build ? await nextBuild(dir(name), env) : undefined;
        // What this costs CI, in the log: install (and build) per project, side by side.
        console.info(`packed tarball: ${name} installed in ${installed} s${built ? `, built in ${built} s` : ""}`);
      }),
    );
  }, 900_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("resolves every subpath export at run time, with import and with require", async () => {
    const esm = SUBPATHS.map((path, i) => `import * as m${i} from "${path}"; if (Object.keys(m${i}).length === 0) throw new Error("${path} is empty");`).join("\n");
    await writeFile(join(dir("esm"), "imports.mjs"), `${esm}\nconsole.log("ok");\n`);
    const cjs = SUBPATHS.map((path) => `if (Object.keys(require("${path}")).length === 0) throw new Error("${path} is empty");`).join("\n");
    await writeFile(join(dir("esm"), "requires.cjs"), `${cjs}\nconsole.log("ok");\n`);
    for (const script of ["imports.mjs", "requires.cjs"]) {
      const { stdout } = await run(process.execPath, [script], { cwd: dir("esm") });
      expect(stdout.trim(), script).toBe("ok");
    }
  });

  it("ships types for every subpath export, ESM and CommonJS, that check without @types/pg and with skipLibCheck off", async () => {
    const uses = [
      `const faultline: Faultline = getOrCreateFaultline("main", () => createFaultline());`,
      `const scopes: readonly string[] = SCOPES;`,
      `const ok: boolean = verifySignature("{}", "00", "secret") || verifyStandardWebhook("{}", {}, "whsec_x");`,
      `void [toExpressHandler(faultline), toFastifyPlugin(faultline), toNextJsHandler(faultline).GET, toNodeHandler(faultline), createTestInstance, scopes, ok];`,
      // A host plugin sees the first-party domain events with their payloads.
      `const audit = definePlugin({ id: "audit", on: { "issue.created": async (event) => { const title: string = event.payload.issue.title; void title; } } });`,
      `void createFaultline({ plugins: [audit] });`,
      `void toExpressHandler(createDashboard({ apiBasePath: "/faultline", organization: "demo" }));`,
      `// @ts-expect-error -- pollIntervalMs is a number of milliseconds`,
      `createDashboard({ pollIntervalMs: "10s" });`,
      // Wrong uses must fail to compile, or the check proves nothing.
      `// @ts-expect-error -- verifySignature takes a secret string`,
      `verifySignature("{}", "00", 42);`,
      `// @ts-expect-error -- not a domain event`,
      `definePlugin({ id: "typo", on: { "issue.creatd": async () => {} } });`,
      // Database has the core's tables and every plugin's (each plugin's tables.ts merges its own in).
      `export type Tables = [Database["organizations"], Database["issues"], Database["service_hooks"], Database["metric_alert_rules"], Database["ingest_queue"]];`,
      `// @ts-expect-error -- no such table`,
      `export type NoTable = Database["issue"];`,
    ];
    const imports = [
      `import { createFaultline, definePlugin, SCOPES, type Database, type Faultline } from "faultline";`,
      `import { toExpressHandler } from "faultline/express";`,
      `import { toFastifyPlugin } from "faultline/fastify";`,
      `import { toNextJsHandler, getOrCreateFaultline } from "faultline/next";`,
      `import { toNodeHandler } from "faultline/node";`,
      `import { createTestInstance } from "faultline/testing";`,
      `import { verifySignature, verifyStandardWebhook } from "faultline/verify";`,
      `import { createDashboard } from "faultline/ui";`,
    ];
    // check.ts is ESM (the project is "type": "module"); check.cts is CommonJS: its imports become
    // require() calls, resolved through the "require" conditions to the .d.cts declarations.
    await writeFile(join(dir("esm"), "check.ts"), [...imports, ...uses].join("\n"));
    await writeFile(join(dir("esm"), "check.cts"), [...imports, ...uses].join("\n"));
    const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: ["node"] };
    await writeFile(join(dir("esm"), "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["check.ts", "check.cts"] }));
    const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", "."], { cwd: dir("esm") }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(result.stdout).toBe("");
    expect("failed" in result).toBe(false);
  }, 300_000);

  describe.each(HOSTS)("$name", ({ project, command, prefix, dashboard, browser }) => {
    let host: Host | undefined;
    let origin = "";

    beforeAll(async () => {
      host = await startHost({
        args: command,
        portArg: true,
        cwd: dir(project),
        env,
        ready: async ({ port }) => {
          origin = `http://127.0.0.1:${port}`;
          const response = await fetch(`${origin}${prefix}/api/0/organizations/demo/`, { headers: { Authorization: `Bearer ${TOKEN}` } }).catch(() => null);
          return response?.status === 200;
        },
      });
    }, 180_000);

    afterAll(async () => {
      await host?.stop();
    });

    it("takes a real @sentry/node event and lists the issue through the API with a token", async () => {
      await sdkRoundTrip({ origin, prefix, token: TOKEN, organization: "demo", project: "web" });
      // Whatever the host's bundler did, the event was parsed in Faultline's worker thread.
      expect(host?.output()).not.toMatch(INGEST_WORKER_UNUSED);
    });

    it("leaves the host's own JSON route working", async () => {
      const order = await fetch(`${origin}/api/orders`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"sku":"A-1"}',
      });
      expect([order.status, await order.json()]).toEqual([201, { order: { sku: "A-1" } }]);
    });

    it.runIf(dashboard)("serves faultline/ui from the installed package under its mount path: the page, and a hashed asset cached for a year", async () => {
      const page = await fetch(`${origin}${dashboard}/demo/issues/1`);
      expect([page.status, page.headers.get("content-type"), page.headers.get("cache-control")]).toEqual([200, "text/html; charset=utf-8", "no-cache"]);
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+\/assets\/[^"]+)"/g)].map(([, href]) => href ?? "");
      expect(assets).toHaveLength(2); // the script and the stylesheet, hashed, under the mount path
      for (const href of assets) {
        expect(href).toMatch(new RegExp(`^${dashboard}/assets/[\\w-]+-[\\w]+\\.(js|css)$`));
        const asset = await fetch(`${origin}${href}`);
        expect([asset.status, asset.headers.get("cache-control"), asset.headers.get("x-content-type-options")], href).toEqual([200, "public, max-age=31536000, immutable", "nosniff"]);
        expect(asset.headers.get("content-type")).toMatch(href.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
        expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
      }
    });

    // Once: the app from the tarball boots in Chromium under the CSP and reaches the API (no
    // session in this host, so the API's 401 is what it shows).
    it.runIf(browser)("runs the installed dashboard in Chromium: no script error or CSP violation, the API's answer shown", async () => {
      const chromium = await launchChromium();
      try {
        const page = await chromium.newPage();
        const problems: string[] = [];
        page.on("console", (message) => message.type() === "error" && !/status of 401/.test(message.text()) && problems.push(message.text()));
        page.on("pageerror", (error) => problems.push(error.message));
        await page.goto(`${origin}${dashboard}`);
        await page.waitForURL(`${origin}${dashboard}/demo`);
        await page.getByRole("alert").filter({ hasText: "not signed in" }).first().waitFor({ timeout: 10_000 });
        expect(problems).toEqual([]);
      } finally {
        await chromium.close();
      }
    }, 60_000);
  });
});
