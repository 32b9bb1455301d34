import { createServer } from "node:http";
import express from "express";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { SCOPES } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { createDashboard } from "../../src/ui/index.js";
import { launchChromium, seriousViolations } from "../helpers/browser.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";

const SESSION = "delivery-log-session";
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });

interface Listed {
  id: string;
  state: string;
  attempts: number;
  target: { url: string };
}

/**
 * Issue 27, finding 6, in the dashboard: real deliveries of two service hooks — a receiver
 * answering 500 and one answering 200 — sent by the instance's worker; the "Failed" filter shows
 * the failing one while it is still being retried, and its row opens to its attempts.
 */
describe("the dashboard's delivery log in Chromium (#27)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  let healthy: Awaited<ReturnType<typeof startReceiver>>;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let ownerId = 0;
  const problems: string[] = [];
  const api = async (path: string, init: RequestInit = {}) =>
    (
      await fetch(`${server.url}/faultline/api/0${path}`, {
        ...init,
        headers: { ...bearer(acme.allScopesToken), "content-type": "application/json" },
      })
    ).json();

  beforeAll(async () => {
    browser = await launchChromium();
    failing = await startReceiver([], { fallback: 500 });
    healthy = await startReceiver();
    instance = await createTestInstance({
      // One retry, an hour away: the failing delivery stays "retrying" for the whole test.
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20, retryDelays: [3600], timeoutMs: 15_000 },
      authenticate: (request) =>
        (request.headers.get("cookie") ?? "").includes(`session=${SESSION}`) && ownerId
          ? { userId: ownerId, scopes: [...SCOPES] }
          : null,
    });
    const { faultline } = instance;
    acme = await seedOrganization(faultline, "acme");
    ownerId = Number(acme.owner.id);
    const app = express();
    app.use("/faultline", toExpressHandler(faultline));
    app.use(
      "/admin/errors",
      toExpressHandler(createDashboard({ apiBasePath: "/faultline", organization: "acme", pollIntervalMs: 700 })),
    );
    server = await listen(createServer(app));
    const project = await faultline.api.projects.create({
      organization: "acme",
      slug: "shop",
      platform: "node",
      features: ["servicehooks"],
    });
    for (const url of [`${failing.url}/failing`, `${healthy.url}/healthy`]) {
      await api("/projects/acme/shop/hooks/", {
        method: "POST",
        body: JSON.stringify({ url, events: ["event.created"] }),
      });
    }
    await captureFor(faultline, { id: project.id, organizationId: acme.organization.id })(
      errorEvent({ fingerprint: ["delivery-log-browser"] }),
    );
    await waitFor(
      async () => {
        const all = (await api("/organizations/acme/deliveries/")) as Listed[];
        return all.some((d) => d.state === "retrying" && d.attempts === 1) && all.some((d) => d.state === "delivered");
      },
      20_000,
      "one delivery retrying, one delivered",
    );

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: "session", value: SESSION, url: server.url }]);
    context.setDefaultTimeout(8000);
    page = await context.newPage();
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    page.on("pageerror", (error) => problems.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await Promise.all([failing?.close(), healthy?.close()]);
    await instance?.close();
  });

  const log = () =>
    page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Delivery log", exact: true }) });
  const rows = () => log().locator("table.deliveries > tbody > tr.delivery");

  it("the Failed filter shows the delivery still being retried, with its target, last answer and next retry", async () => {
    await page.goto(`${server.url}/admin/errors/acme/integrations`);
    await log().waitFor();
    await poll(() => rows().count()).toBe(2);
    await log().getByRole("combobox", { name: "Status" }).selectOption("failed");
    await poll(() => rows().count()).toBe(1);
    const row = rows().first();
    const text = (await row.textContent()) ?? "";
    expect(text).toContain("shop service hook");
    expect(text).toContain(`${failing.url}/failing`);
    expect(text).toContain("retrying");
    expect(text).toMatch(/HTTP 500 \d+ ms/);
    // The next retry, an hour after the attempt (relative, with the exact time on hover); minutes
    // may have passed since the attempt on a loaded machine.
    await expect(row.locator("time").first().textContent()).resolves.toMatch(/in (1 hour|60 minutes|[45]\d minutes)/);

    await log().getByRole("combobox", { name: "Status" }).selectOption("delivered");
    await poll(async () => (await rows().first().textContent()) ?? "").toContain(`${healthy.url}/healthy`);
    expect(await rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain("HTTP 200");
    expect(problems).toEqual([]);
  });

  it("a row opens to its attempts: number, outcome, duration, URL; accessible", async () => {
    await log().getByRole("combobox", { name: "Status" }).selectOption("failed");
    await poll(() => rows().count()).toBe(1);
    const [failed] = (await api("/organizations/acme/deliveries/?status=failed")) as Listed[];
    const opener = log().getByRole("button", { name: `Attempts of event.created ${failed?.id}` });
    expect(await opener.getAttribute("aria-expanded")).toBe("false");
    await opener.click();
    expect(await opener.getAttribute("aria-expanded")).toBe("true");
    const history = log().getByRole("table", { name: `Attempts of delivery ${failed?.id}` });
    await poll(() => history.locator("tbody tr").count()).toBe(1);
    const attempt = (await history.locator("tbody tr").first().textContent()) ?? "";
    expect(attempt).toMatch(/^1/);
    expect(attempt).toMatch(/HTTP 500 \d+ ms/);
    expect(attempt).toContain(`${failing.url}/failing`);
    const violations = await seriousViolations(page);
    expect(violations, JSON.stringify(violations, null, 1)).toEqual([]);
    await opener.click();
    await poll(() => history.count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
