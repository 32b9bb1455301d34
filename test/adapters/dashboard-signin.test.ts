import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import express from "express";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import type { AuthenticateHook } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { createDashboard } from "../../src/ui/index.js";
import { launchChromium } from "../helpers/browser.js";
import { listen, type RunningServer } from "../helpers/server.js";

/**
 * The first visit without a session (#27): the 401 screen links to the host's sign-in page and
 * comes back, or says what the host must configure. The hook is docs/dashboard.md's example,
 * extracted from the doc as written, so a change that breaks it fails here.
 */
const doc = readFileSync(new URL("../../docs/dashboard.md", import.meta.url), "utf8");
const hookSource = /```js\n(\/\/ faultline-auth\.js[\s\S]*?)```/.exec(doc)?.[1];

describe("the dashboard's signed-out screen, with the documented authenticate hook (Chromium)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let browser: Browser;
  let signSession: (userId: string) => string;
  // In the checkout (.scratch/, gitignored), so its `import "faultline"` resolves like the tests' own.
  const file = join(import.meta.dirname, "../../.scratch", `faultline-auth-${process.pid}.mjs`);

  beforeAll(async () => {
    expect(hookSource, "docs/dashboard.md has a ```js block starting // faultline-auth.js").toBeDefined();
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, hookSource ?? "");
    process.env.SESSION_SECRET = "a secret only the server knows, for this test";
    const hook = (await import(/* @vite-ignore */ file)) as {
      authenticate: AuthenticateHook;
      signSession: (userId: string) => string;
    };
    signSession = hook.signSession;
    browser = await launchChromium();
    instance = await createTestInstance({ worker: false, authenticate: (request) => hook.authenticate(request) });
    const { faultline } = instance;
    await faultline.api.organizations.create({ slug: "acme", name: "Acme" });
    // The doc's example maps the host's user "ada" to Faultline user 1: the first one, as bootstrap creates it.
    const ada = await faultline.api.users.create({ username: "ada", email: "ada@acme.test" });
    expect(ada.id).toBe("1");
    await faultline.api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    await faultline.api.projects.create({ organization: "acme", slug: "web", platform: "node" });

    const app = express();
    app.use("/faultline", toExpressHandler(faultline));
    app.use(
      "/admin/errors",
      toExpressHandler(
        createDashboard({ apiBasePath: "/faultline", organization: "acme", signInUrl: "/login?app=shop" }),
      ),
    );
    app.use("/admin/plain", toExpressHandler(createDashboard({ apiBasePath: "/faultline", organization: "acme" })));
    // The host's own sign-in, a stand-in: signs "ada" in and returns to a local path only.
    app.get("/login", (req, res) => {
      const returnTo =
        typeof req.query.returnTo === "string" && /^\/(?![/\\])/.test(req.query.returnTo) ? req.query.returnTo : "/";
      res.cookie("session", signSession("ada"), { httpOnly: true, sameSite: "lax" }).redirect(303, returnTo);
    });
    server = await listen(createServer(app));
  });
  afterAll(async () => {
    await server?.close();
    await browser?.close();
    await instance?.close();
    rmSync(file, { force: true });
  });

  it("with signInUrl: a Sign in link to it carrying the page to return to; signing in comes back to that page, signed in", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/errors/acme/projects`);
      const alert = page.getByRole("alert").filter({ hasText: "not signed in" }).first();
      await alert.waitFor({ timeout: 8000 });
      const link = alert.getByRole("link", { name: "Sign in" });
      expect(await link.getAttribute("href")).toBe(
        `${server.url}/login?app=shop&returnTo=%2Fadmin%2Ferrors%2Facme%2Fprojects`,
      );
      await link.click();
      await page.waitForURL(`${server.url}/admin/errors/acme/projects`);
      await page
        .getByRole("textbox", { name: /^DSN of / })
        .first()
        .waitFor({ timeout: 8000 });
      expect(await page.getByRole("alert").filter({ hasText: "not signed in" }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("without signInUrl: says what the host configures (the hook, signInUrl, the doc), and no link", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/plain/acme`);
      const alert = page.getByRole("alert").filter({ hasText: "not signed in" }).first();
      await alert.waitFor({ timeout: 8000 });
      const text = await alert.textContent();
      expect(text).toContain("authenticate");
      expect(text).toContain("signInUrl");
      expect(text).toContain("docs/dashboard.md");
      expect(await alert.getByRole("link").count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("the hook refuses a forged or missing signature, and a change from another origin", async () => {
    const get = (cookie: string) =>
      instance.faultline.handler(new Request(`${server.url}/api/0/organizations/acme/`, { headers: { cookie } }));
    expect((await get(`session=${signSession("ada")}`)).status).toBe(200);
    expect((await get("session=ada")).status).toBe(401);
    expect((await get(`session=${signSession("ada").replace(/.$/, (c) => (c === "A" ? "B" : "A"))}`)).status).toBe(401);
    expect((await get(`session=${signSession("mallory")}`)).status).toBe(401); // signed in, but not a Faultline user
    // A change with the session's cookie: creating one of ada's own tokens.
    const post = (origin: string) =>
      instance.faultline.handler(
        new Request(`${server.url}/api/0/api-tokens/`, {
          method: "POST",
          headers: { cookie: `session=${signSession("ada")}`, origin, "content-type": "application/json" },
          body: '{"scopes":["event:read"]}',
        }),
      );
    expect((await post("https://evil.test")).status).toBe(401);
    expect((await post(server.url)).status).toBe(201);
  });
});
