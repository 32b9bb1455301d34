import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { get } from "node:http";
import { createServer } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactBundle, uploadBundle } from "../helpers/artifact-upload.js";
import { launchChromium, seriousViolations } from "../helpers/browser.js";
import { rawRequest } from "../helpers/raw-http.js";
import { sdkRoundTrip } from "./sdk.js";
import { dsnOf } from "./suite.js";

/** An exception with library frames around one in-app frame that has source context. */
function paymentEvent(type: string, value: string, file: string, fn: string) {
  return {
    platform: "node",
    level: "error",
    environment: "production",
    exception: {
      values: [{
        type,
        value,
        stacktrace: {
          frames: [
            { filename: "node:internal/process/task_queues", function: "processTicksAndRejections", lineno: 95, in_app: false },
            {
              filename: file,
              function: fn,
              lineno: 42,
              in_app: true,
              pre_context: ["export async function charge(order) {", "  const card = order.customer.card;"],
              context_line: "  return gateway.charge(card.token, order.total);",
              post_context: ["}"],
            },
          ],
        },
      }],
    },
  };
}

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

  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
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

  it("no request ends the host: a malformed Host, forwarded headers, absolute- and asterisk-form targets, a URL over 64 KB", async () => {
    const authority = new URL(origin).host;
    const path = "/api/faultline/api/0/organizations/demo/";
    const get = (target: string, headers: string) => `GET ${target} HTTP/1.1\r\n${headers}\r\nAuthorization: Bearer ${token}`;
    const detail = (body: string) => (JSON.parse(body) as { detail: string }).detail;
    // Next copies Host into X-Forwarded-Host, so Faultline's 400 names that header.
    const badHost = await rawRequest(origin, get(path, "Host: exa mple.com"));
    expect([badHost.status, detail(badHost.body)]).toEqual([400, expect.stringMatching(/^Invalid X-Forwarded-Host header: "exa mple\.com"/)]);
    const badForwarded = await rawRequest(origin, get(path, `Host: ${authority}\r\nX-Forwarded-Host: evil.example/x?`));
    expect([badForwarded.status, detail(badForwarded.body)]).toEqual([400, expect.stringMatching(/^Invalid X-Forwarded-Host header/)]);
    const badProto = await rawRequest(origin, get(path, `Host: ${authority}\r\nX-Forwarded-Proto: javascript`));
    expect([badProto.status, detail(badProto.body)]).toEqual([400, expect.stringMatching(/^Invalid X-Forwarded-Proto header/)]);
    // Next's own answers, before the route handler: a redirect to the origin-form path; its 500 for `*`; Node's 431.
    expect((await rawRequest(origin, get(`http://${authority}${path}`, `Host: ${authority}`))).status).toBe(308);
    expect((await rawRequest(origin, `OPTIONS * HTTP/1.1\r\nHost: ${authority}`)).outcome).toBe("answered");
    expect((await rawRequest(origin, get(`${path}?q=${"a".repeat(70_000)}`, `Host: ${authority}`))).status).toBe(431);
    const alive = await rawRequest(origin, get(path, `Host: ${authority}`));
    expect(alive.status).toBe(200);
    expect(server?.exitCode).toBeNull();
  });

  it("assembles an artifact bundle of ~100 KB whose entry inflates to 100 MiB of zeros, and answers afterwards (#27: it ended the host)", { timeout: 120_000 }, async () => {
    const bomb = artifactBundle({ "zeros.js": { data: new Uint8Array(100 * 1024 * 1024) } });
    expect(await uploadBundle(`${origin}/api/faultline`, token, bomb, "demo", "web")).toEqual({ state: "ok", detail: null, missingChunks: [] });
    expect((await fetch(`${origin}/api/faultline/api/0/organizations/demo/`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(server?.exitCode).toBeNull();
  });

  it("serves the dashboard under /admin/errors: the page under the strict CSP, hashed assets cached for a year", async () => {
    const page = await fetch(`${origin}/admin/errors/demo/issues/1`);
    expect([page.status, page.headers.get("content-type"), page.headers.get("cache-control")]).toEqual([200, "text/html; charset=utf-8", "no-cache"]);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const script = /<script type="module" src="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    expect(script).toMatch(/^\/admin\/errors\/assets\/[\w-]+\.js$/);
    const asset = await fetch(`${origin}${script}`);
    expect([asset.status, asset.headers.get("content-type"), asset.headers.get("cache-control")]).toEqual([200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"]);
    expect((await fetch(`${origin}/admin/errors/assets/nope-0000.js`)).status).toBe(404);
    // Asked for brotli as a browser asks, the bytes are what the headers say (Next drops a route's Content-Encoding).
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      get(`${origin}${script}`, { headers: { "Accept-Encoding": "gzip, deflate, br" } }, (response) => {
        const parts: Buffer[] = [];
        response.on("data", (part: Buffer) => parts.push(part)).on("end", () => resolve({ encoding: response.headers["content-encoding"], body: Buffer.concat(parts) })).on("error", reject);
      }).on("error", reject);
    });
    const decoded = raw.encoding === "br" ? brotliDecompressSync(raw.body) : raw.encoding === "gzip" ? gunzipSync(raw.body) : raw.body;
    expect(decoded.toString("utf8")).toBe(await (await fetch(`${origin}${script}`, { headers: { "Accept-Encoding": "identity" } })).text());
  });

  it("triage in Chromium under /admin/errors: sign in, find an issue by search, read its stack trace, resolve it, see the activity", async () => {
    const dsn = new URL(await dsnOf({ origin, prefix: "/api/faultline", token, organization: "demo", project: "web" }));
    const store = `${origin}${dsn.pathname.replace(/\/(\d+)$/, "/api/$1/store/")}?sentry_key=${dsn.username}&sentry_version=7`;
    for (const event of [
      paymentEvent("PaymentDeclined", "Card declined for order 1187", "src/payments/charge.ts", "charge"),
      paymentEvent("RangeError", "Quantity out of range", "src/cart/quantity.ts", "setQuantity"),
      paymentEvent("TypeError", "Cannot read properties of undefined (reading 'sku')", "src/cart/items.ts", "addItem"),
    ]) {
      const response = await fetch(store, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(event) });
      expect(response.status).toBe(200);
    }
    const authorization = { Authorization: `Bearer ${token}` };
    const declined = async () => ((await (await fetch(`${origin}/api/faultline/api/0/organizations/demo/issues/?query=declined`, { headers: authorization })).json()) as Array<{ id: string; status: string }>)[0];
    await expect.poll(declined, { timeout: 10_000 }).toBeDefined();

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(8000);
    const page: Page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    page.on("pageerror", (error) => problems.push(error.message));

    // The host's sign-in sets its session cookie and redirects to the dashboard, which opens "demo".
    await page.goto(`${origin}/login`);
    await page.waitForURL(`${origin}/admin/errors/demo`);
    await expect.poll(() => page.locator("li.issue").count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("combobox", { name: "Search" }).fill("is:unresolved declined");
    await page.getByRole("combobox", { name: "Search" }).press("Enter");
    await expect.poll(() => page.locator("li.issue").count(), { timeout: 10_000 }).toBe(1);
    await page.locator("li.issue a.title").first().click();
    await page.getByRole("heading", { level: 1, name: /PaymentDeclined/ }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/errors\/demo\/issues\/\d+$/);
    const trace = page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Stack trace", exact: true }) });
    await trace.locator(".exception").first().waitFor();
    await expect(trace.locator(".exception h3").first().textContent()).resolves.toBe("PaymentDeclined: Card declined for order 1187");
    await expect(trace.locator(".context .hit").first().textContent()).resolves.toContain("gateway.charge(card.token, order.total)");
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Resolve", exact: true }).click();
    await page.getByRole("button", { name: "Unresolve" }).waitFor();
    expect((await declined())?.status).toBe("resolved"); // through the API, with the token
    await expect.poll(() => page.locator(".activity").textContent(), { timeout: 10_000 }).toContain("resolved the issue");
    expect(problems).toEqual([]); // no CSP violation, no script error
    await context.close();
  }, 60_000);
});
