// What a real Next.js host must survive and serve, checked on the Next.js guide's app (next build +
// next start on the packed tarball) by guides.test.ts: hostile requests, a decompression bomb,
// the dashboard's headers and assets, and triage in Chromium. They ran on examples/next-host with
// a `next build` of its own; one build fewer keeps CI in its budget (examples/next-host stays
// type-checked by `npm run typecheck`).
import { get } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { artifactBundle, uploadBundle } from "../helpers/artifact-upload.js";
import { launchChromium, seriousViolations } from "../helpers/browser.js";
import { rawRequest } from "../helpers/raw-http.js";
import type { Host } from "./hosts.js";

export interface NextHostUnderTest {
  host: Host;
  origin: string;
  /** The API token the first start printed. */
  token: string;
  /** The sign-in path the host printed on its latest start. */
  signIn: string;
  organization: string;
  project: string;
  prefix: string;
  dashboard: string;
}

/** An exception with library frames around one in-app frame that has source context. */
function paymentEvent(type: string, value: string, file: string, fn: string) {
  const inApp = {
    filename: file,
    function: fn,
    lineno: 42,
    in_app: true,
    pre_context: ["export async function charge(order) {", "  const card = order.customer.card;"],
    context_line: "  return gateway.charge(card.token, order.total);",
    post_context: ["}"],
  };
  const library = { filename: "node:internal/process/task_queues", function: "processTicksAndRejections", lineno: 95, in_app: false };
  return { platform: "node", level: "error", environment: "production", exception: { values: [{ type, value, stacktrace: { frames: [library, inApp] } }] } };
}

/** Registers the checks in the calling `describe`; `current()` is read when each runs. */
export function nextHostChecks(current: () => NextHostUnderTest): void {
  const api = (t: NextHostUnderTest, path: string) => `${t.origin}${t.prefix}/api/0/organizations/${t.organization}/${path}`;
  const bearer = (t: NextHostUnderTest) => ({ Authorization: `Bearer ${t.token}` });
  // Built before the hosts start: zipping 100 MiB takes seconds, and a gap that long between two
  // requests races the host's keep-alive timeout ("other side closed" on a reused socket).
  let bomb = new Uint8Array();
  beforeAll(() => {
    bomb = artifactBundle({ "zeros.js": { data: new Uint8Array(100 * 1024 * 1024) } });
  });

  it("answers every method of the catch-all, including HEAD and OPTIONS (CORS preflight for ingest)", async () => {
    const t = current();
    const head = await fetch(api(t, ""), { method: "HEAD", headers: bearer(t) });
    expect([head.status, await head.text()]).toEqual([200, ""]);
    const preflight = await fetch(`${t.origin}${t.prefix}/api/1/envelope/`, { method: "OPTIONS" });
    expect([preflight.status, preflight.headers.get("access-control-allow-origin")]).toEqual([200, "*"]);
  });

  it("no request ends the host: a malformed Host, forwarded headers, absolute- and asterisk-form targets, a URL over 64 KB", async () => {
    const t = current();
    const authority = new URL(t.origin).host;
    const path = new URL(api(t, "")).pathname;
    const request = (target: string, headers: string) => `GET ${target} HTTP/1.1\r\n${headers}\r\nAuthorization: Bearer ${t.token}`;
    const detail = (body: string) => (JSON.parse(body) as { detail: string }).detail;
    // Next copies Host into X-Forwarded-Host, so Faultline's 400 names that header.
    const badHost = await rawRequest(t.origin, request(path, "Host: exa mple.com"));
    expect([badHost.status, detail(badHost.body)]).toEqual([400, expect.stringMatching(/^Invalid X-Forwarded-Host header: "exa mple\.com"/)]);
    const badForwarded = await rawRequest(t.origin, request(path, `Host: ${authority}\r\nX-Forwarded-Host: evil.example/x?`));
    expect([badForwarded.status, detail(badForwarded.body)]).toEqual([400, expect.stringMatching(/^Invalid X-Forwarded-Host header/)]);
    const badProto = await rawRequest(t.origin, request(path, `Host: ${authority}\r\nX-Forwarded-Proto: javascript`));
    expect([badProto.status, detail(badProto.body)]).toEqual([400, expect.stringMatching(/^Invalid X-Forwarded-Proto header/)]);
    // Next's own answers, before the route handler: a redirect to the origin-form path; its 500 for `*`; Node's 431.
    expect((await rawRequest(t.origin, request(`http://${authority}${path}`, `Host: ${authority}`))).status).toBe(308);
    expect((await rawRequest(t.origin, `OPTIONS * HTTP/1.1\r\nHost: ${authority}`)).outcome).toBe("answered");
    expect((await rawRequest(t.origin, request(`${path}?q=${"a".repeat(70_000)}`, `Host: ${authority}`))).status).toBe(431);
    expect((await rawRequest(t.origin, request(path, `Host: ${authority}`))).status).toBe(200);
    expect(t.host.process.exitCode).toBeNull();
  });

  it("assembles an artifact bundle of ~100 KB whose entry inflates to 100 MiB of zeros, and answers afterwards (#27: it ended the host)", { timeout: 120_000 }, async () => {
    const t = current();
    expect(await uploadBundle(`${t.origin}${t.prefix}`, t.token, bomb, t.organization, t.project)).toEqual({ state: "ok", detail: null, missingChunks: [] });
    expect((await fetch(api(t, ""), { headers: bearer(t) })).status).toBe(200);
    expect(t.host.process.exitCode).toBeNull();
  });

  it("serves the dashboard: the page under the strict CSP, hashed assets cached for a year, brotli bytes as the headers say", async () => {
    const t = current();
    const page = await fetch(`${t.origin}${t.dashboard}/${t.organization}/issues/1`);
    expect([page.status, page.headers.get("content-type"), page.headers.get("cache-control")]).toEqual([200, "text/html; charset=utf-8", "no-cache"]);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const script = /<script type="module" src="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    expect(script).toMatch(new RegExp(`^${t.dashboard}/assets/[\\w-]+\\.js$`));
    const asset = await fetch(`${t.origin}${script}`);
    expect([asset.status, asset.headers.get("content-type"), asset.headers.get("cache-control")]).toEqual([200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"]);
    expect((await fetch(`${t.origin}${t.dashboard}/assets/nope-0000.js`)).status).toBe(404);
    // Asked for brotli as a browser asks (Next drops a route's Content-Encoding: the adapter must not compress).
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      get(`${t.origin}${script}`, { headers: { "Accept-Encoding": "gzip, deflate, br" } }, (response) => {
        const parts: Buffer[] = [];
        response.on("data", (part: Buffer) => parts.push(part)).on("end", () => resolve({ encoding: response.headers["content-encoding"], body: Buffer.concat(parts) })).on("error", reject);
      }).on("error", reject);
    });
    const decoded = raw.encoding === "br" ? brotliDecompressSync(raw.body) : raw.encoding === "gzip" ? gunzipSync(raw.body) : raw.body;
    expect(decoded.toString("utf8")).toBe(await (await fetch(`${t.origin}${script}`, { headers: { "Accept-Encoding": "identity" } })).text());
  });

  it("triage in Chromium: find an issue by search, read its stack trace, resolve it, see the activity", async () => {
    const t = current();
    const [key] = (await (await fetch(`${t.origin}${t.prefix}/api/0/projects/${t.organization}/${t.project}/keys/`, { headers: bearer(t) })).json()) as Array<{ dsn: { public: string } }>;
    const dsn = new URL(key?.dsn.public ?? "");
    const store = `${t.origin}${dsn.pathname.replace(/\/(\d+)$/, "/api/$1/store/")}?sentry_key=${dsn.username}&sentry_version=7`;
    for (const event of [
      paymentEvent("PaymentDeclined", "Card declined for order 1187", "src/payments/charge.ts", "charge"),
      paymentEvent("RangeError", "Quantity out of range", "src/cart/quantity.ts", "setQuantity"),
      paymentEvent("TypeError", "Cannot read properties of undefined (reading 'sku')", "src/cart/items.ts", "addItem"),
    ]) {
      const response = await fetch(store, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(event) });
      expect(response.status).toBe(200);
    }
    const declined = async () => ((await (await fetch(api(t, "issues/?query=declined"), { headers: bearer(t) })).json()) as Array<{ id: string; status: string }>)[0];
    await expect.poll(declined, { timeout: 10_000 }).toBeDefined();

    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(8000);
      const page: Page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
      page.on("pageerror", (error) => problems.push(error.message));

      await page.goto(`${t.origin}${t.signIn}`);
      await page.waitForURL(`${t.origin}${t.dashboard}/${t.organization}`);
      await expect.poll(() => page.locator("li.issue").count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("combobox", { name: "Search" }).fill("is:unresolved declined");
      await page.getByRole("combobox", { name: "Search" }).press("Enter");
      await expect.poll(() => page.locator("li.issue").count(), { timeout: 10_000 }).toBe(1);
      await page.locator("li.issue a.title").first().click();
      await page.getByRole("heading", { level: 1, name: /PaymentDeclined/ }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(new RegExp(`^${t.dashboard}/${t.organization}/issues/\\d+$`));
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
    } finally {
      await browser.close();
    }
  }, 60_000);
}
