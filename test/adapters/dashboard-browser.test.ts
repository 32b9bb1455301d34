import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import express from "express";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { createDashboard } from "../../src/ui/index.js";
import { launchChromium, seriousViolations } from "../helpers/browser.js";
import { outboxRow } from "../helpers/deliveries.js";
import { captureFor } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { listen, type RunningServer } from "../helpers/server.js";
import { captureWithSdk } from "./sdk.js";

const SESSION = "dashboard-test-session";
/** expect.poll with room for a loaded CI machine (its default gives up after 1 s). */
const poll = <T>(read: () => Promise<T> | T, options: { timeout?: number; interval?: number } = {}) =>
  expect.poll(read, { timeout: 10_000, ...options });
const FAILED_DELIVERY = "00000000-0000-4000-8000-0000000000d1";
/** Screenshots go to docs/ when asked (UPDATE_SCREENSHOTS=1), else beside the test run. */
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dirname, "../../docs")
  : join(import.meta.dirname, "../../.scratch/screenshots");

function frames(file: string, fn: string) {
  return [
    { filename: "node:internal/process/task_queues", function: "processTicksAndRejections", lineno: 95, in_app: false },
    { filename: "node_modules/express/lib/router/layer.js", function: "handle", lineno: 95, in_app: false },
    {
      filename: file,
      function: fn,
      lineno: 42,
      colno: 11,
      in_app: true,
      pre_context: ["export async function charge(order) {", "  const card = order.customer.card;"],
      context_line: "  return gateway.charge(card.token, order.total);",
      post_context: ["}", ""],
    },
  ];
}

/**
 * The host: an Express app with its own session cookie, Faultline's API at /faultline and the
 * dashboard at /admin/errors; the authenticate hook maps the session to the owner.
 */
describe("the dashboard in a real browser (Chromium), on an Express host under /admin/errors", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let capture: ReturnType<typeof captureFor>;
  let ownerId = 0;
  const problems: string[] = [];
  const base = () => `${server.url}/admin/errors`;
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}/faultline/api/0${path}`, {
      ...init,
      headers: { authorization: `Bearer ${acme.allScopesToken}`, "content-type": "application/json" },
    });
    return response.status === 204 ? null : response.json();
  };

  beforeAll(async () => {
    browser = await launchChromium();
    instance = await createTestInstance({
      worker: false, // nothing is sent: the redelivered row stays pending
      delivery: { allowPrivateNetworks: true },
      // An email channel for the notification settings screen (nothing is sent: no worker).
      notifications: {
        email: { url: "smtp://127.0.0.1:9", from: "errors@example.com" },
        dashboardUrl: "http://127.0.0.1/faultline/admin",
      },
      authenticate: (request) =>
        (request.headers.get("cookie") ?? "").includes(`session=${SESSION}`) && ownerId
          ? { userId: ownerId, scopes: [...SCOPES] }
          : null,
    });
    const { faultline } = instance;
    acme = await seedOrganization(faultline, "acme");
    ownerId = Number(acme.owner.id);
    capture = captureFor(faultline, { id: acme.project.id, organizationId: acme.organization.id });
    const now = Date.now() / 1000;
    for (let i = 0; i < 30; i++) {
      await capture({
        platform: "node",
        level: i % 3 ? "error" : "warning",
        timestamp: now - i * 600,
        environment: i % 2 ? "production" : "staging",
        release: "shop@1.4.2",
        fingerprint: [`seed-${i}`],
        exception: {
          values: [
            {
              type: i % 2 ? "TypeError" : "RangeError",
              value: `Seeded failure number ${i}`,
              stacktrace: { frames: frames(`src/seed-${i}.ts`, `step${i}`) },
            },
          ],
        },
      });
    }
    for (let i = 0; i < 3; i++) {
      await capture({
        platform: "node",
        level: "error",
        environment: "production",
        release: "shop@1.4.2",
        timestamp: now - i * 60,
        user: { id: `customer-${i}`, email: `c${i}@shop.test` },
        tags: { region: "eu-west", checkout: i === 0 ? "v2" : "v1" },
        request: { url: "https://shop.test/checkout", method: "POST", headers: { "User-Agent": "Mozilla/5.0" } },
        breadcrumbs: {
          values: [
            { timestamp: now - 70, category: "http", message: "POST /api/cart 200" },
            { timestamp: now - 65, category: "ui.click", message: "button#pay" },
          ],
        },
        contexts: { runtime: { name: "node", version: "v20.20.2" } },
        exception: {
          values: [
            {
              type: "ConnectionError",
              value: "gateway timed out",
              stacktrace: { frames: frames("src/gateway.ts", "connect") },
            },
            {
              type: "PaymentDeclined",
              value: "Card declined for order 1187",
              stacktrace: { frames: frames("src/payments/charge.ts", "charge") },
            },
          ],
        },
      });
    }
    const app = express();
    app.use("/faultline", toExpressHandler(faultline));
    app.use(
      "/admin/errors",
      toExpressHandler(createDashboard({ apiBasePath: "/faultline", organization: "acme", pollIntervalMs: 700 })),
    );
    // Without an `organization` option: the root lists the caller's organizations.
    app.use("/admin/all", toExpressHandler(createDashboard({ apiBasePath: "/faultline" })));
    server = await listen(createServer(app));
    // A real SDK event too, through the DSN the keys endpoint gives.
    const [key] = (await api("/projects/acme/web/keys/")) as Array<{ dsn: { public: string } }>;
    await captureWithSdk(key?.dsn.public ?? "", "Checkout crashed in the real SDK");
    await instance.faultline.worker.runDue("ingest.digest").catch(() => undefined);
    // A service hook and one failed delivery of it, for the delivery log's Redeliver.
    await faultline.api.projects.create({
      organization: "acme",
      slug: "shop",
      platform: "node",
      features: ["servicehooks"],
    });
    const hook = (await api("/projects/acme/shop/hooks/", {
      method: "POST",
      body: JSON.stringify({ url: "http://127.0.0.1:9/in", events: ["event.created"] }),
    })) as { id: string };
    // An issue alert rule and a metric alert rule, for the Alerts screen.
    await api("/projects/acme/web/rules/", {
      method: "POST",
      body: JSON.stringify({
        name: "New production errors",
        actionMatch: "all",
        conditions: [{ id: "first_seen_event" }],
        filters: [],
        environment: "production",
        frequency: 30,
      }),
    });
    await api("/organizations/acme/alert-rules/", {
      method: "POST",
      body: JSON.stringify({
        name: "Checkout error burst",
        projects: ["web"],
        query: "level:error",
        aggregate: "count()",
        timeWindow: 5,
        thresholdType: "above",
        triggers: [{ label: "critical", alertThreshold: 100 }],
        resolveThreshold: 20,
      }),
    });
    const failedAt = new Date(Date.now() - 60_000);
    await faultline.container
      .resolve(tokens.Db)
      .insertInto("deliveries")
      .values(
        outboxRow({
          id: FAILED_DELIVERY,
          organization_id: Number(acme.organization.id),
          destination_id: hook.id,
          status: "failed",
          next_attempt_at: failedAt,
          date_created: failedAt,
          date_finished: failedAt,
          attempts: 5,
          last_response_code: 503,
        }),
      )
      .execute();

    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: "session", value: SESSION, url: server.url }]);
    context.setDefaultTimeout(8000); // a missing element fails the step, with its name, well before the test's timeout
    page = await context.newPage();
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    page.on("pageerror", (error) => problems.push(error.message));
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await instance?.close();
  });

  const section = (title: string) =>
    page.locator("section", { has: page.getByRole("heading", { level: 2, name: title, exact: true }) });
  const nav = (name: string) =>
    page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name, exact: true });

  const expectAccessible = async (screen: string) => {
    const violations = await seriousViolations(page);
    expect(violations, `${screen}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
  };

  it("loads the stream under the strict CSP, with counts, users and sparklines; first-screen JS < 150 KB gzip", async () => {
    const scripts: Buffer[] = [];
    page.on("response", async (response) => {
      if (response.request().resourceType() === "script") scripts.push(await response.body());
    });
    const response = await page.goto(base());
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.waitForURL(`${base()}/acme`);
    await poll(() => page.locator("li.issue").count()).toBe(25);
    await poll(() => page.getByRole("toolbar").textContent()).toMatch(/32 issues/);
    await expect(page.locator("li.issue svg.spark").count()).resolves.toBeGreaterThan(0);
    const payment = page.locator("li.issue", { hasText: "PaymentDeclined" });
    await expect(payment.locator(".num").first().textContent()).resolves.toMatch(/^3/);
    await expect(payment.locator(".num").nth(1).textContent()).resolves.toMatch(/^3/);
    const gzipped = scripts.reduce((sum, body) => sum + gzipSync(body).byteLength, 0);
    expect(scripts.length).toBeGreaterThan(0);
    expect(gzipped).toBeLessThan(150 * 1024);
    await page.screenshot({ path: join(SHOTS, "dashboard-stream.png") });
    await expectAccessible("issue stream");
    expect(problems).toEqual([]); // no CSP violation, no script error
  });

  it("paginates with the cursor, then filters by environment and finds an issue by search", async () => {
    await page.getByRole("button", { name: "Next" }).click();
    await poll(() => page.locator("li.issue").count()).toBe(7);
    await page.getByRole("button", { name: "Previous" }).click();
    await poll(() => page.locator("li.issue").count()).toBe(25);
    await page.getByLabel("Environment").fill("staging");
    await page.getByLabel("Environment").press("Enter");
    await poll(() => page.locator("li.issue").count()).toBe(15);
    await page.getByLabel("Environment").fill("");
    // Suggestions and the syntax help come from the server's own key list (docs/search.md).
    await page.getByRole("combobox", { name: "Search" }).fill("is:unresolved times");
    await poll(() =>
      page
        .locator("#search-suggestions option")
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
    ).toContain("is:unresolved times_seen:>10");
    await page.getByText("Search syntax").click();
    await poll(() => page.locator(".search-help").textContent()).toContain("user.email:");
    await page.getByRole("combobox", { name: "Search" }).fill("is:unresolved declined");
    await page.getByRole("combobox", { name: "Search" }).press("Enter");
    await poll(() => page.locator("li.issue").count()).toBe(1);
    expect(new URL(page.url()).searchParams.get("query")).toBe("is:unresolved declined");
  });

  it("opens the issue: stack trace with in-app frames first and source context, chain, breadcrumbs, request, user; then resolves it", async () => {
    await page.keyboard.press("Escape");
    await page.locator("body").focus();
    await page.keyboard.press("j");
    // The focused issue shows a focus ring (keyboard focus: :focus-visible).
    expect(await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)).toBe("solid");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: /PaymentDeclined/ }).waitFor();
    const trace = section("Stack trace");
    await trace.locator(".exception").first().waitFor();
    await expect(trace.locator(".exception h3").allTextContents()).resolves.toEqual([
      "PaymentDeclined: Card declined for order 1187",
      "ConnectionError: gateway timed out",
    ]);
    await expect(trace.locator(".exception").first().locator(".frame").count()).resolves.toBe(1); // library frames folded
    await expect(trace.locator(".context .hit").first().textContent()).resolves.toContain(
      "gateway.charge(card.token, order.total)",
    );
    await trace.getByRole("button", { name: "Show 2 library frames" }).first().click();
    await expect(trace.locator(".exception").first().locator(".frame").count()).resolves.toBe(3);
    await expect(section("Breadcrumbs").textContent()).resolves.toContain("button#pay");
    await expect(section("Request").textContent()).resolves.toContain("POST https://shop.test/checkout");
    await expect(section("User").textContent()).resolves.toMatch(/customer-\d/);
    await expect(section("Tags").textContent()).resolves.toContain("eu-west");
    // The issue's tag distributions, over all three events (not only the latest): one region; two checkout versions.
    const distribution = section("Tag distribution");
    await poll(() =>
      distribution.locator(".tag-key", { has: page.getByRole("heading", { name: /^region/ }) }).textContent(),
    ).toMatch(/1 value[\s\S]*eu-west\s*100%/);
    const checkout = distribution.locator(".tag-key", { has: page.getByRole("heading", { name: /^checkout/ }) });
    await expect(checkout.locator(".tag-value").allTextContents()).resolves.toEqual(["v1", "v2"]);
    await expect(checkout.locator(".tag-share").allTextContents()).resolves.toEqual(["67%", "33%"]);
    await expect(section("Contexts").textContent()).resolves.toContain("v20.20.2");
    await expect(page.locator(".issue-head").textContent()).resolves.toContain("release shop@1.4.2");
    await page.getByRole("button", { name: "Older event" }).click();
    await poll(() => new URL(page.url()).searchParams.get("event")).toMatch(/^[0-9a-f]{32}$/);
    await page.screenshot({ path: join(SHOTS, "dashboard-issue.png"), fullPage: true });
    await expectAccessible("issue detail");

    await page.getByRole("button", { name: "Resolve", exact: true }).click();
    await page.getByRole("button", { name: "Unresolve" }).waitFor();
    const id = new URL(page.url()).pathname.split("/").pop();
    expect(((await api(`/organizations/acme/issues/${id}/`)) as { status: string }).status).toBe("resolved");
    await poll(() => page.locator(".activity").textContent()).toContain("resolved the issue");
    // Resolving subscribed the viewer to the issue's workflow notifications; the control says why.
    await poll(() => page.locator(".subscription-reason").textContent()).toBe(
      "Subscribed because you changed its status",
    );
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await page.getByRole("button", { name: "Subscribe", exact: true }).waitFor();
    expect(((await api(`/organizations/acme/issues/${id}/`)) as { isSubscribed: boolean }).isSubscribed).toBe(false);
    await page.getByLabel("Comment").fill("Looked at it: the gateway's fault.");
    await page.getByRole("button", { name: "Add comment" }).click();
    await poll(() => page.locator(".activity").textContent()).toContain("the gateway's fault");
  });

  it("bulk-ignores and bulk-assigns from the stream, and shows a new issue without a reload", async () => {
    await nav("Issues").click();
    await poll(() => page.locator("li.issue").count()).toBe(25);
    const firstTwo = page.locator("li.issue input[type=checkbox]");
    await firstTwo.nth(0).check();
    await firstTwo.nth(1).check();
    await page.getByRole("button", { name: "Ignore" }).click();
    await poll(() => page.getByRole("toolbar").textContent()).toMatch(/Ignored 2 issues/);
    const ignored = (await api("/organizations/acme/issues/?query=is:ignored")) as unknown[];
    expect(ignored).toHaveLength(2);
    await poll(() => page.locator("li.issue").count()).toBe(25); // the next unresolved ones moved up
    await firstTwo.nth(0).check();
    await page.getByLabel("Assign selected issues to").fill("acme-owner");
    await page.getByRole("toolbar").getByRole("button", { name: "Assign" }).click();
    await poll(() => page.getByRole("toolbar").textContent()).toMatch(/Assigned to acme-owner: 1 issue/);
    expect((await api("/organizations/acme/issues/?query=assigned:acme-owner")) as unknown[]).toHaveLength(1);

    await capture({
      platform: "node",
      level: "fatal",
      fingerprint: ["fresh"],
      exception: { values: [{ type: "FreshError", value: "arrived while watching" }] },
    });
    await poll(() => page.locator("li.issue", { hasText: "FreshError" }).count()).toBe(1);
  });

  it("without an organization option, the root lists the caller's organizations and opens one", async () => {
    await page.goto(`${server.url}/admin/all`);
    const organizations = section("Your organizations");
    await organizations.getByRole("link", { name: "acme" }).waitFor();
    await expectAccessible("organization list");
    await organizations.getByRole("link", { name: "acme" }).click();
    await page.waitForURL(`${server.url}/admin/all/acme`);
    await poll(() => page.locator("li.issue").count()).toBeGreaterThan(0);
  });

  it("without a session (the authenticate hook says no), says so instead of showing data", async () => {
    const anonymous = await browser.newContext();
    try {
      const other = await anonymous.newPage();
      await other.goto(`${base()}/acme`);
      await other.getByRole("alert").filter({ hasText: "not signed in" }).first().waitFor({ timeout: 8000 });
      expect(await other.locator("li.issue").count()).toBe(0);
    } finally {
      await anonymous.close();
    }
  });

  it("a shared issue's page opens without a session: read-only, no user, tags or breadcrumbs; gone once unshared", async () => {
    const [issue] = (await api("/organizations/acme/issues/?query=PaymentDeclined")) as Array<{ id: string }>;
    const path = `/organizations/acme/issues/${issue?.id}/`;
    const { shareId } = (await api(path, { method: "PUT", body: JSON.stringify({ isPublic: true }) })) as {
      shareId: string;
    };
    const anonymous = await browser.newContext();
    try {
      const visitor = await anonymous.newPage();
      visitor.on("pageerror", (error) => problems.push(error.message));
      await visitor.goto(`${base()}/share/issue/${shareId}/`);
      await visitor.getByRole("heading", { level: 1, name: /PaymentDeclined/ }).waitFor();
      const shared = (title: string) =>
        visitor.locator("section", { has: visitor.getByRole("heading", { level: 2, name: title, exact: true }) });
      await expect(shared("Stack trace").locator(".exception h3").first().textContent()).resolves.toBe(
        "PaymentDeclined: Card declined for order 1187",
      );
      await expect(shared("Request").textContent()).resolves.toContain("POST https://shop.test/checkout");
      const text = (await visitor.locator("body").textContent()) ?? "";
      for (const hidden of ["customer-", "@shop.test", "eu-west", "button#pay", "Sections"])
        expect(text).not.toContain(hidden);
      await expect(visitor.getByRole("navigation").count()).resolves.toBe(0);
      const violations = await seriousViolations(visitor);
      expect(violations, JSON.stringify(violations, null, 1)).toEqual([]);

      await api(path, { method: "PUT", body: JSON.stringify({ isPublic: false }) });
      await visitor.reload();
      await visitor.getByRole("alert").filter({ hasText: "no longer shared" }).waitFor();
    } finally {
      await anonymous.close();
    }
    expect(problems).toEqual([]);
  });

  it("projects and DSN keys, integrations with the delivery log, alert rules: accessible; usable at 360 px in the dark", async () => {
    await nav("Projects").click();
    const dsn = page.getByRole("textbox", { name: /^DSN of web / });
    await dsn.waitFor();
    expect(await dsn.inputValue()).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/faultline\/\d+$/);
    await expectAccessible("projects");
    await nav("Integrations").click();
    await page.getByRole("heading", { name: "Delivery log" }).waitFor();
    await poll(() => section("Service hooks").textContent()).toContain("http://127.0.0.1:9/in"); // its list loads after the heading
    await expectAccessible("integrations");
    await page.getByRole("button", { name: `Redeliver event.created ${FAILED_DELIVERY}` }).click();
    await poll(() => section("Delivery log").getByRole("status").textContent()).toContain("queued again");
    const [delivery] = (await api(`/organizations/acme/deliveries/?status=pending`)) as Array<{ id: string }>;
    expect(delivery?.id).toBe(FAILED_DELIVERY);
    await nav("Alerts").click();
    await page.getByRole("heading", { name: "Metric alert rules" }).waitFor();
    await poll(() => section("Issue alert rules").textContent()).toContain("New production errors");
    await page.getByRole("button", { name: "Checkout error burst" }).click();
    await poll(() => section("Metric alert rules").textContent()).toContain("No incidents.");
    await expectAccessible("alerts");
    // A new issue rule with actions: email a member, post to Slack, and keep the hooks and apps.
    const editor = section("New issue alert rule");
    await editor.getByLabel("Name").fill("Checkout pager");
    await editor.getByLabel("Email").selectOption(`member:${acme.owner.id}`);
    await editor.getByLabel("Chat").selectOption("slack");
    await editor.getByLabel("Webhook URL").fill("https://hooks.slack.com/services/T1/B2/abcdwxyz");
    await editor.getByRole("button", { name: "Create rule" }).click();
    await poll(() => editor.getByRole("status").textContent()).toBe('Rule "Checkout pager" created.');
    await poll(() => section("Issue alert rules").textContent()).toContain(
      `emails member ${acme.owner.id}, posts to slack (https://hooks.slack.com/…wxyz), notifies service hooks and apps`,
    );
    await expectAccessible("alerts with the rule editor");
    await nav("Notifications").click();
    const workflowEmail = section("Your notifications").getByRole("checkbox", { name: /^workflow by email/ });
    await workflowEmail.waitFor();
    expect(await workflowEmail.isChecked()).toBe(true);
    await workflowEmail.click();
    await poll(() => section("Your notifications").getByRole("status").textContent()).toContain(
      "Workflow email notifications off",
    );
    expect(((await api("/organizations/acme/notification-settings/")) as { settings: unknown[] }).settings).toEqual([
      { category: "workflow", channel: "email", project: null, enabled: false },
    ]);
    await poll(() => workflowEmail.isChecked()).toBe(false); // once the settings are read again
    await expectAccessible("notification settings");

    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: "dark" });
    await nav("Issues").click();
    await poll(() => page.locator("li.issue").count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expectAccessible("issue stream, dark, 360 px");
    await page.locator("li.issue a.title").first().click();
    await page.getByRole("heading", { name: "Stack trace" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expectAccessible("issue detail, dark, 360 px");
    await page.screenshot({ path: join(SHOTS, "dashboard-issue-dark-360.png") });
    expect(problems).toEqual([]);
  });

  it("lists cron monitors with their schedule, status and a timeline of recent check-ins", async () => {
    await api("/organizations/acme/monitors/", {
      method: "POST",
      body: JSON.stringify({
        name: "Nightly backup",
        project: "web",
        config: { schedule_type: "crontab", schedule: "0 3 * * *" },
      }),
    });
    const [key] = (await api("/projects/acme/web/keys/")) as Array<{ public: string }>;
    for (const status of ["ok", "error"]) {
      const url = `${server.url}/faultline/api/${acme.project.id}/cron/nightly-backup/${key?.public}/?status=${status}`;
      expect((await fetch(url, { method: "POST" })).status).toBe(202);
    }
    await page.goto(base());
    await nav("Crons").click();
    const row = page.getByRole("row", { name: /Nightly backup/ });
    await row.waitFor();
    expect(await row.getByRole("cell").allTextContents()).toEqual([
      "0 3 * * * (UTC)",
      expect.stringMatching(/ago|now/),
      "error",
      expect.stringMatching(/^ok at .*error at /),
    ]);
    await expectAccessible("crons");
  });

  it("shows each release's crash-free rates on the Releases screen and the issue page (release health)", async () => {
    const key = acme.project.keys[0]?.public as string;
    const started = new Date().toISOString();
    const session = (sid: string, fields: object) =>
      `{}\n{"type":"session"}\n${JSON.stringify({ sid, started, attrs: { release: "shop@1.4.2", environment: "production" }, ...fields })}`;
    for (const body of [
      session("a", { did: "ann", init: true, status: "exited" }),
      session("b", { did: "bob", init: true, status: "ok" }),
      session("b", { did: "bob", status: "crashed", errors: 1 }),
    ]) {
      const response = await fetch(`${server.url}/faultline/api/${acme.project.id}/envelope/?sentry_key=${key}`, {
        method: "POST",
        body,
      });
      expect(response.status).toBe(200);
    }
    await page.goto(base());
    await nav("Releases").click();
    const row = page.getByRole("row", { name: /shop@1\.4\.2/ });
    await poll(() => row.textContent()).toContain("50 %");
    expect(await row.locator("td").allTextContents()).toEqual([
      "shop@1.4.2",
      "web",
      "50 %",
      "50 %",
      "2",
      "2",
      "100 %",
      expect.any(String),
    ]);
    await expectAccessible("releases");
    // The issue page shows its event's release with the same rates.
    const issues = (await api("/organizations/acme/issues/?query=")) as Array<{ id: string; title: string }>;
    const seeded = issues.find((issue) => issue.title.includes("Seeded failure"));
    await page.goto(`${base()}/acme/issues/${seeded?.id}`);
    await poll(() => page.locator(".issue-head").textContent()).toContain(
      "release shop@1.4.2 (crash-free sessions 50 % · users 50 %)",
    );
  });

  it("shows the stream of a 10,000-issue organization in under a second", async () => {
    const { faultline } = instance;
    const big = await faultline.api.organizations.create({ slug: "big", name: "Big" });
    await faultline.api.members.add({ organization: "big", user: acme.owner.id, role: "owner" });
    const project = await faultline.api.projects.create({ organization: "big", slug: "app", platform: "node" });
    const db = faultline.container.resolve(tokens.Db);
    const table = (name: string) => sql.table(`${instance.schema}.${name}`);
    // Straight into the tables (as the list benchmark does): 10,000 issues and 24 h of hourly stats.
    await sql`INSERT INTO ${table("issues")} (organization_id, project_id, short_number, type, title, culprit, message, level, platform, metadata, status, substatus, first_seen, last_seen, times_seen, user_count)
      SELECT ${Number(big.id)}, ${Number(project.id)}, g, 'error', 'BulkError: failure ' || g, 'handler' || g || '(app.js)', 'failure ' || g, 'error', 'node', '{}',
             'unresolved', 'ongoing', now() - interval '30 days' + g * interval '1 second', now() - (g % 86400) * interval '1 second', 10 + g % 50, 1 + g % 7
      FROM generate_series(1, 10000) AS g`.execute(db);
    await sql`UPDATE ${table("projects")} SET next_short_id = 10001 WHERE id = ${Number(project.id)}`.execute(db);
    await sql`INSERT INTO ${table("issue_stats_hourly")} (issue_id, bucket, count)
      SELECT id, date_trunc('hour', now()) - k * interval '1 hour', 1 + (id + k) % 5 FROM ${table("issues")}, generate_series(0, 23) AS k
      WHERE project_id = ${Number(project.id)}`.execute(db);
    await sql`ANALYZE ${table("issues")}`.execute(db);
    await sql`ANALYZE ${table("issue_stats_hourly")}`.execute(db);

    await page.setViewportSize({ width: 1280, height: 900 });
    const timings: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = performance.now();
      await page.goto(`${base()}/big`);
      await poll(() => page.locator("li.issue").count(), { interval: 10 }).toBe(25);
      timings.push(performance.now() - started);
    }
    await poll(() => page.getByRole("toolbar").textContent()).toMatch(/1000\+ issues/); // the API counts up to 1000
    // The best of three page loads (a shared CI machine adds noise, not the dashboard).
    expect(Math.min(...timings), timings.map(Math.round).join(", ")).toBeLessThan(1000);
  });
});
