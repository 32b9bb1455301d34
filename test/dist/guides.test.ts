import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.js";
import { type CodeBlock, codeBlocks } from "../helpers/markdown.js";
import { type Host, INGEST_WORKER_UNUSED, installFreshApp, nextBuild, run, startHost } from "./hosts.js";
import { nextHostChecks } from "./next-host-checks.js";

/**
 * The embedding guides, run as a newcomer would: each guide's code blocks, extracted from the
 * Markdown as written (by their `title="…"`), become a fresh app that installs the packed tarball
 * from a default `npm init` package.json (no "type"); then the loop the guide ends with —
 * provisioning on start, the DSN from its `curl`, a real `@sentry/node` event sent by its
 * send-error.mjs, the issue from its second `curl`, and its sign-in link opening the dashboard in
 * Chromium on that issue. Editing a guide so that the loop breaks fails this test.
 */

const repo = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(repo, path), "utf8");

/** The version installed in this checkout: the same one the fresh app gets, from the npm cache. */
const pinned = (name: string) => `${name}@${(JSON.parse(read(`node_modules/${name}/package.json`)) as { version: string }).version}`;

/** The block titled `title`, exactly one, or the test fails naming the guide. */
function titled(doc: string, title: string): string {
  const found = codeBlocks(read(doc)).filter((block) => block.title === title);
  if (found.length !== 1) throw new Error(`${doc}: expected one code block titled "${title}", found ${found.length}`);
  return (found[0] as CodeBlock).code;
}

/** A `curl -H "Name: value" <url>` line of the guide's shell blocks, aimed at this host. */
interface Curl {
  url: string;
  headers: Record<string, string>;
}

function curls(doc: string, origin: string, token: string): Curl[] {
  const lines = codeBlocks(read(doc))
    .filter((block) => block.lang === "sh" || block.lang === "bash")
    .flatMap((block) => block.code.split("\n"))
    .filter((line) => line.startsWith("curl "));
  return lines.map((line) => {
    const url = /(https?:\/\/[^\s"']+)/.exec(line)?.[1];
    if (!url) throw new Error(`${doc}: a curl line without a URL: ${line}`);
    const headers = Object.fromEntries([...line.matchAll(/-H "([^:"]+): ([^"]*)"/g)].map(([, name = "", value = ""]) => [name, value.replaceAll("$TOKEN", token)]));
    // The guide's app listens on localhost:3000; the test's on a free port.
    return { url: url.replace(/^http:\/\/localhost:3000/, origin), headers };
  });
}

interface Guide {
  name: string;
  doc: string;
  /** The installed project it runs in (PROJECTS), and its directory there. */
  project: keyof typeof PROJECTS;
  app: string;
  /** Path in the app → the title of the guide's block written there. */
  files: Record<string, string>;
  /** `node <args>` starts it; with `portArg` the port is appended (`next start -p`). */
  args: string[];
  portArg?: boolean;
  build?: boolean;
  /** The guide's Faultline prefix and dashboard mount, as its curl lines and sign-in link use them. */
  prefix: string;
  dashboard: string;
  /** The guide's app has a JSON route of its own, POST /api/orders. */
  ownRoute: boolean;
}

const SENTRY = pinned("@sentry/node");

/** What `create-next-app` writes (TypeScript, App Router, the `@/` alias the guide imports with). */
const NEXT_TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "ES2017",
    lib: ["dom", "dom.iterable", "esnext"],
    allowJs: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: "esnext",
    moduleResolution: "bundler",
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: "react-jsx",
    incremental: true,
    plugins: [{ name: "next" }],
    paths: { "@/*": ["./*"] },
  },
  include: ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts"],
  exclude: ["node_modules"],
});

/**
 * Fresh projects as `npm init -y` writes them (no "type": CommonJS by default), each installing the
 * packed tarball, the SDK and its framework(s). The ESM guides share one install, each app in its
 * own directory (its own cwd, so its own ./.faultline/data): installs are most of this test's time.
 * `scaffold`: what a real project of that kind has that no guide shows (create-next-app's tsconfig).
 */
const PROJECTS = {
  esm: { dependencies: ["express@5", "fastify@5", "hono@4", "@hono/node-server@1", SENTRY], scaffold: {} },
  cjs: { dependencies: ["express@4", SENTRY], scaffold: {} },
  // The checkout's versions (next 16), so `next build` type-checks the guide's TypeScript with what CI has cached.
  next: { dependencies: [...["next", "react", "react-dom", "typescript", "@types/react", "@types/node"].map(pinned), SENTRY], scaffold: { "tsconfig.json": NEXT_TSCONFIG } },
} satisfies Record<string, { dependencies: string[]; scaffold: Record<string, string> }>;

const GUIDES: Guide[] = [
  {
    name: "Express 5 (ESM, server.mjs)",
    doc: "docs/embedding-express.md",
    project: "esm",
    app: "express",
    files: { "server.mjs": "server.mjs" },
    args: ["server.mjs"],
    prefix: "/faultline",
    dashboard: "/admin/errors",
    ownRoute: true,
  },
  {
    name: "Express 4 (CommonJS, server.cjs)",
    doc: "docs/embedding-express.md",
    project: "cjs",
    app: ".",
    files: { "server.cjs": "server.cjs" },
    args: ["server.cjs"],
    prefix: "/faultline",
    dashboard: "/admin/errors",
    ownRoute: true,
  },
  {
    name: "Fastify 5",
    doc: "docs/embedding-fastify.md",
    project: "esm",
    app: "fastify",
    files: { "server.mjs": "server.mjs" },
    args: ["server.mjs"],
    prefix: "/faultline",
    dashboard: "/admin/errors",
    ownRoute: true,
  },
  {
    name: "Hono (@hono/node-server)",
    doc: "docs/embedding-hono.md",
    project: "esm",
    app: "hono",
    files: { "server.mjs": "server.mjs" },
    args: ["server.mjs"],
    prefix: "/faultline",
    dashboard: "/admin/errors",
    ownRoute: true,
  },
  {
    name: "Next.js 16 (TypeScript, next build + next start)",
    doc: "docs/embedding-next.md",
    project: "next",
    app: ".",
    files: {
      "lib/faultline.ts": "lib/faultline.ts",
      "instrumentation.ts": "instrumentation.ts",
      "app/api/faultline/[...path]/route.ts": "app/api/faultline/[...path]/route.ts",
      "app/admin/errors/[[...path]]/route.ts": "app/admin/errors/[[...path]]/route.ts",
      "app/login/route.ts": "app/login/route.ts",
      "next.config.mjs": "next.config.mjs",
    },
    args: ["node_modules/next/dist/bin/next", "start", "-p"],
    portArg: true,
    build: true,
    prefix: "/api/faultline",
    dashboard: "/admin/errors",
    ownRoute: false,
  },
];

// No DATABASE_URL: the guides' instances take the default, embedded PGlite in ./.faultline/data.
const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete env.DATABASE_URL;

const SIGN_IN = /Dashboard: http:\/\/localhost:\d+(\/login\?sid=\w+)/;
const TOKEN_LINE = /API token \(shown once, keep it\): (flu_\w+)/;

describe("the embedding guides, run as written against the packed tarball", () => {
  let root = "";
  const dir = (guide: Guide) => join(root, guide.project, guide.app);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "faultline-guides-"));
    await Promise.all(
      Object.entries(PROJECTS).map(async ([name, project]) => {
        const files: Record<string, string> = { ...project.scaffold };
        for (const guide of GUIDES.filter((g) => g.project === name)) {
          files[join(guide.app, "send-error.mjs")] = titled(guide.doc, "send-error.mjs");
          for (const [path, title] of Object.entries(guide.files)) files[join(guide.app, path)] = titled(guide.doc, title);
        }
        const installed = await installFreshApp(join(root, name), { files, dependencies: project.dependencies });
        const built = GUIDES.some((g) => g.project === name && g.build) ? await nextBuild(join(root, name), env) : undefined;
        // What this costs CI, in the log.
        console.info(`guides: project ${name} installed in ${installed} s${built ? `, built in ${built} s` : ""}`);
      }),
    );
  }, 900_000);

  afterAll(async () => {
    // KEEP_GUIDE_APPS=1 leaves the apps in place, to run and inspect one by hand.
    if (process.env.KEEP_GUIDE_APPS) console.info(`guides: the apps are in ${root}`);
    else if (root) await rm(root, { recursive: true, force: true });
  });

  describe.each(GUIDES)("$name ($doc)", (guide) => {
    let host: Host | undefined;
    let origin = "";
    let firstToken = "";
    const start = () =>
      startHost({ args: guide.args, portArg: guide.portArg, cwd: dir(guide), env, ready: ({ output }) => SIGN_IN.test(output()) });

    beforeAll(async () => {
      host = await start();
      origin = `http://localhost:${host.port}`;
    }, 180_000);

    afterAll(async () => {
      await host?.stop();
    });

    it("provision → a real @sentry/node event → the issue in the API → the dashboard shows it in Chromium", async () => {
      const output = host?.output() ?? "";
      const token = TOKEN_LINE.exec(output)?.[1];
      expect(token, `the first start prints the API token:\n${output}`).toBeDefined();
      firstToken = token ?? "";
      const [keys, issues, ...rest] = curls(guide.doc, origin, token ?? "");
      expect(rest).toEqual([]);
      expect(keys?.url).toBe(`${origin}${guide.prefix}/api/0/projects/acme/web/keys/`);
      expect(issues?.url).toBe(`${origin}${guide.prefix}/api/0/organizations/acme/issues/`);

      // 1. The DSN, from the guide's first curl: it carries the origin and the prefix.
      const keysResponse = await fetch(keys?.url ?? "", { headers: keys?.headers });
      expect(keysResponse.status).toBe(200);
      const [key] = (await keysResponse.json()) as Array<{ dsn: { public: string } }>;
      const dsn = key?.dsn.public ?? "";
      expect(dsn).toMatch(new RegExp(`^http://[0-9a-f]{32}@localhost:${host?.port}${guide.prefix}/\\d+$`));

      // 2. The guide's send-error.mjs, run as it says: a real SDK, a real event.
      await run(process.execPath, ["send-error.mjs"], { cwd: dir(guide), env: { ...env, SENTRY_DSN: dsn }, timeout: 30_000 });

      // 3. The issue, from the guide's second curl.
      let titles: string[] = [];
      for (let attempt = 0; attempt < 50 && !titles.includes("Error: Checkout failed"); attempt++) {
        if (attempt > 0) await new Promise((done) => setTimeout(done, 100));
        const response = await fetch(issues?.url ?? "", { headers: issues?.headers });
        expect(response.status).toBe(200);
        titles = ((await response.json()) as Array<{ title: string }>).map((issue) => issue.title);
      }
      expect(titles).toEqual(["Error: Checkout failed"]);
      // The ingest worker thread ran from the installed package, whatever the host's bundler did.
      expect(host?.output()).not.toMatch(INGEST_WORKER_UNUSED);

      // 4. The dashboard: the sign-in link the host printed, the stream, the issue and its stack trace.
      const signIn = SIGN_IN.exec(output)?.[1] ?? "";
      const chromium = await launchChromium();
      try {
        const page = await chromium.newPage();
        const problems: string[] = [];
        page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
        page.on("pageerror", (error) => problems.push(error.message));
        await page.goto(`${origin}${signIn}`);
        await page.waitForURL(`${origin}${guide.dashboard}/acme`, { timeout: 15_000 }).catch(async (error: Error) => {
          // Where the sign-in link led instead, and what that page said.
          throw new Error(`${error.message}\nat ${page.url()}, page errors: ${JSON.stringify(problems)}\n${(await page.content()).slice(0, 2000)}\nhost output:\n${host?.output()}`);
        });
        const issue = page.locator("li.issue a.title", { hasText: "Checkout failed" });
        await issue.waitFor({ timeout: 15_000 });
        await issue.click();
        await page.getByRole("heading", { level: 1, name: /Checkout failed/ }).waitFor();
        const trace = page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Stack trace", exact: true }) });
        // The in-app frame's source line, sent by the SDK's context lines: the guide's own code.
        await expect.poll(() => trace.locator(".context .hit").first().textContent(), { timeout: 10_000 }).toContain('Sentry.captureException(new Error("Checkout failed"))');
        expect(problems).toEqual([]);
      } finally {
        await chromium.close();
      }
    }, 120_000);

    it.runIf(guide.ownRoute)("leaves the host's own route working", async () => {
      const order = await fetch(`${origin}/api/orders`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"sku":"A-1"}' });
      expect([order.status, await order.json()]).toEqual([201, { order: { sku: "A-1" } }]);
    });

    it("refuses the sign-in route without the printed link, and the API without a session or token", async () => {
      const signIn = await fetch(`${origin}/login?sid=guessed`, { redirect: "manual" });
      expect([signIn.status, signIn.headers.get("set-cookie")]).toEqual([403, null]);
      const api = await fetch(`${origin}${guide.prefix}/api/0/organizations/acme/issues/`, { headers: { Cookie: "sid=guessed" } });
      expect(api.status).toBe(401);
    });

    it("provisions once: a restart on the same data prints no new token, and the first one still works", async () => {
      const token = TOKEN_LINE.exec(host?.output() ?? "")?.[1] ?? "";
      await host?.stop();
      host = await start();
      origin = `http://localhost:${host.port}`;
      expect(host.output()).not.toMatch(TOKEN_LINE);
      const [, issues] = curls(guide.doc, origin, token);
      const response = await fetch(issues?.url ?? "", { headers: issues?.headers });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Array<{ title: string }>).map((issue) => issue.title)).toEqual(["Error: Checkout failed"]);
    }, 180_000);

    // The built Next.js app, on the restarted host: what a real Next host must survive and serve.
    if (guide.build) {
      nextHostChecks(() => {
        if (!host) throw new Error("the host did not start");
        const signIn = SIGN_IN.exec(host.output())?.[1] ?? "";
        return { host, origin, token: firstToken, signIn, organization: "acme", project: "web", prefix: guide.prefix, dashboard: guide.dashboard };
      });
    }
  });
});
