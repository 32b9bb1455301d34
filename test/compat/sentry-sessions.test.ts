import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { launchChromium } from "../helpers/browser.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, listen, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Release health from the real SDKs (docs/release-health.md): @sentry/node in request mode in a
 * host app of its own process (`sessions` aggregates), and @sentry/browser in Chromium (a page
 * load's `session`). The sessions endpoint and `health=1` show what they sent.
 */
const APP = fileURLToPath(new URL("../fixtures/sessions-app.mjs", import.meta.url));
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe("release health from the real Sentry SDKs", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;
  let dsn: string;
  const call = httpCaller(() => server.url);

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: quiet });
    seed = await seedOrganization(instance.faultline, "acme");
    server = await serveFaultline(instance.faultline);
    const keys = await call("GET", "/api/0/projects/acme/web/keys/", seed.allScopesToken);
    dsn = keys.body[0].dsn.public;
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  /** The release's health over the last hours (the SDKs' clocks are real time). */
  async function healthOf(release: string) {
    const now = Date.now();
    const window = `start=${new Date(now - 2 * 3_600_000).toISOString()}&end=${new Date(now + 3_600_000).toISOString()}`;
    const stats = await call(
      "GET",
      `/api/0/organizations/acme/sessions/?field=sum(session)&field=crash_free_rate(session)&field=count_unique(user)&groupBy=release&groupBy=environment&includeSeries=0&${window}`,
      seed.allScopesToken,
    );
    expect(stats.status).toBe(200);
    await call("POST", "/api/0/organizations/acme/releases/", seed.allScopesToken, {
      version: release,
      projects: ["web"],
    });
    const detail = await call(
      "GET",
      `/api/0/organizations/acme/releases/${encodeURIComponent(release)}/?health=1&summaryStatsPeriod=24h`,
      seed.allScopesToken,
    );
    return {
      groups: stats.body.groups.filter((group: { by: { release: string } }) => group.by.release === release),
      healthData: detail.body.projects[0]?.healthData,
    };
  }

  it("@sentry/node in request mode: each request a session, an error in one an errored session", async () => {
    const release = "node-app@1.2.3";
    const app: ChildProcessWithoutNullStreams = spawn(process.execPath, [APP], {
      env: { ...process.env, SENTRY_DSN: dsn, SENTRY_RELEASE: release },
    });
    try {
      const lines = createInterface({ input: app.stdout })[Symbol.asyncIterator]();
      const port = /^port (\d+)$/.exec(String((await lines.next()).value))?.[1];
      for (const path of ["/ok", "/ok", "/ok", "/fail"]) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(await response.text()).toBe("ok");
      }
      app.stdin.write("flush\n");
      expect((await lines.next()).value).toBe("flushed");
    } finally {
      app.kill();
    }
    const { groups, healthData } = await healthOf(release);
    expect(groups).toEqual([
      {
        by: { release, environment: "compat" },
        totals: { "sum(session)": 4, "crash_free_rate(session)": 1, "count_unique(user)": 0 },
      },
    ]);
    expect(healthData).toMatchObject({
      totalSessions: 4,
      sessionsErrored: 1,
      sessionsCrashed: 0,
      crashFreeSessions: 100,
    });
  });

  describe("@sentry/browser in Chromium", () => {
    let browser: Browser;
    let page: RunningServer;
    const release = "browser-app@2.0.0";

    beforeAll(async () => {
      // The SDK as a page would ship it: bundled from node_modules into one script.
      const bundled = await build({
        stdin: {
          contents: `import * as Sentry from "@sentry/browser";
            Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: ${JSON.stringify(release)}, environment: "browser",
              initialScope: { user: { id: "visitor-1" } } });
            window.Sentry = Sentry;`,
          resolveDir: fileURLToPath(new URL("../../", import.meta.url)),
        },
        bundle: true,
        format: "iife",
        write: false,
        logLevel: "silent",
      });
      const script = bundled.outputFiles[0]?.text ?? "";
      page = await listen(
        createServer((request, response) => {
          if (request.url === "/app.js") response.setHeader("content-type", "text/javascript").end(script);
          else
            response
              .setHeader("content-type", "text/html")
              .end('<!doctype html><title>app</title><script src="/app.js"></script>');
        }),
      );
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await page?.close();
    });

    it("a page load sends a session; a handled error makes it errored", async () => {
      const tab = await browser.newPage();
      const sent = (body: string) => (request: { url(): string; postData(): string | null }) =>
        request.url().includes("/envelope/") && (request.postData() ?? "").includes(body);
      const started = tab.waitForRequest(sent('"init":true'));
      await tab.goto(page.url);
      await started;
      const errored = tab.waitForResponse((response) => sent('"errors":1')(response.request()));
      await tab.evaluate(() =>
        (window as unknown as { Sentry: { captureException(e: Error): void } }).Sentry.captureException(
          new Error("handled in the page"),
        ),
      );
      expect((await errored).status()).toBe(200);
      await tab.close();
      const { groups, healthData } = await healthOf(release);
      expect(groups).toEqual([
        {
          by: { release, environment: "browser" },
          totals: { "sum(session)": 1, "crash_free_rate(session)": 1, "count_unique(user)": 1 },
        },
      ]);
      expect(healthData).toMatchObject({ totalSessions: 1, totalUsers: 1, sessionsErrored: 1, crashFreeUsers: 100 });
    });
  });
});
