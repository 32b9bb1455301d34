import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import express from "express";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { SCOPES } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { createDashboard } from "../../src/ui/index.js";
import { launchChromium } from "../helpers/browser.js";
import { captureFor } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer } from "../helpers/server.js";

const SESSION = "feedback-test-session";
const root = fileURLToPath(new URL("../../", import.meta.url));
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });

/** The page's script: the real @sentry/browser with its feedback widget, bundled for the browser. */
async function bundleBrowserSdk(): Promise<string> {
  const { build } = await import("esbuild");
  const result = await build({
    stdin: {
      contents: `
        import * as Sentry from "@sentry/browser";
        const dsn = document.querySelector('meta[name="dsn"]').content;
        Sentry.init({ dsn, defaultIntegrations: false, environment: "browser",
          integrations: [Sentry.feedbackIntegration({ autoInject: true, colorScheme: "light", enableScreenshot: false })] });
        document.body.dataset.ready = "1";`,
      resolveDir: root,
      loader: "js",
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    write: false,
    logLevel: "error",
  });
  return result.outputFiles[0]?.text ?? "";
}

/**
 * The JS browser SDK's feedback widget in Chromium, submitted by hand, reaching a live Faultline
 * (docs/user-feedback.md); then the dashboard's feedback screen and the issue page's user reports
 * show the reports, their text as text.
 */
describe("the browser SDK's feedback widget and the dashboard's feedback screens, in Chromium", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let ownerId = 0;
  const api = async (path: string) =>
    (await fetch(`${server.url}/faultline/api/0${path}`, { headers: bearer(acme.allScopesToken) })).json();

  beforeAll(async () => {
    const [sdk, launched] = await Promise.all([bundleBrowserSdk(), launchChromium()]);
    browser = launched;
    instance = await createTestInstance({
      worker: false,
      logger: silentLogger,
      authenticate: (request) =>
        (request.headers.get("cookie") ?? "").includes(`session=${SESSION}`) && ownerId
          ? { userId: ownerId, scopes: [...SCOPES] }
          : null,
    });
    acme = await seedOrganization(instance.faultline, "acme");
    ownerId = Number(acme.owner.id);
    const app = express();
    app.use("/faultline", toExpressHandler(instance.faultline));
    app.use("/admin", toExpressHandler(createDashboard({ apiBasePath: "/faultline", organization: "acme" })));
    app.get("/sdk.js", (_req, res) => void res.type("application/javascript").send(sdk));
    app.get("/shop", (_req, res) => {
      const key = acme.project.keys[0]?.public as string;
      const dsn = `${server.url.replace("://", `://${key}@`)}/faultline/${acme.project.id}`;
      res.type("html").send(`<!doctype html><html lang="en"><head><title>Shop</title><meta name="dsn" content="${dsn}">
        </head><body><h1>Shop</h1><script src="/sdk.js"></script></body></html>`);
    });
    server = await listen(createServer(app));
    const context = await browser.newContext();
    await context.addCookies([{ name: "session", value: SESSION, url: server.url }]);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await instance?.close();
  });

  it("submits the widget's form and the feedback is kept", async () => {
    await page.goto(`${server.url}/shop`);
    await page.locator("body[data-ready='1']").waitFor();
    await page.getByRole("button", { name: "Report a Bug" }).click();
    await page.getByLabel("Name").fill("Widget User");
    await page.getByLabel("Email").fill("widget@example.com");
    await page.getByLabel("Description").fill("<img src=x onerror=alert(1)> the cart empties itself");
    await page.getByRole("button", { name: "Send Bug Report" }).click();
    await page.getByText("Thank you for your report!").waitFor();

    const [kept] = (await api("/projects/acme/web/user-feedback/")) as Array<Record<string, unknown>>;
    expect(kept).toMatchObject({
      name: "Widget User",
      email: "widget@example.com",
      comments: "<img src=x onerror=alert(1)> the cart empties itself",
      kind: "feedback",
      source: "widget",
      url: `${server.url}/shop`,
      environment: "browser",
      issue: null,
    });
  });

  it("shows feedback on the dashboard's feedback screen and the issue page, as text", async () => {
    const capture = captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id });
    const { eventId } = await capture({ platform: "node", message: "reported failure", level: "error" });
    const posted = await fetch(`${server.url}/faultline/api/0/projects/acme/web/user-feedback/`, {
      method: "POST",
      headers: { ...bearer(acme.allScopesToken), "content-type": "application/json" },
      body: JSON.stringify({ event_id: eventId, name: "Ann", email: "ann@example.com", comments: "<b>bold</b> claim" }),
    });
    expect(posted.status).toBe(200);
    const issueId = ((await posted.json()) as { issue: { id: string } }).issue.id;

    await page.goto(`${server.url}/admin/acme/feedback`);
    const list = page.getByRole("region", { name: "Feedback" });
    await poll(() => list.locator(".feedback-text").allTextContents()).toEqual([
      "<b>bold</b> claim",
      "<img src=x onerror=alert(1)> the cart empties itself",
    ]);
    expect(await list.locator("img, b").count()).toBe(0);

    await page.goto(`${server.url}/admin/acme/issues/${issueId}`);
    const reports = page.locator("section", { has: page.getByRole("heading", { name: "User reports" }) });
    await poll(() => reports.locator(".feedback-text").allTextContents()).toEqual(["<b>bold</b> claim"]);
  });
});
