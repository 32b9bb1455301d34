import * as Sentry from "@sentry/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { sentryCli } from "../helpers/sentry-cli.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Cron monitors from real, unmodified clients against a live Faultline server (docs/crons.md):
 * @sentry/node's `withMonitor` and sentry-cli 3.8's `monitors run`, which both send `check_in`
 * envelope items to the DSN (sentry-cli 3.8 needs `SENTRY_DSN` for it and uses no other endpoint).
 */
describe("cron check-ins from real clients", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;
  let dsn: string;

  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: bearer(seed.allScopesToken) });
    expect(response.status).toBe(200);
    return response.json();
  };

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger });
    seed = await seedOrganization(instance.faultline);
    server = await serveFaultline(instance.faultline);
    const key = seed.project.keys[0]?.public as string;
    dsn = `http://${key}@${new URL(server.url).host}/${seed.project.id}`;
  });
  afterAll(async () => {
    await Sentry.close(500);
    await server?.close();
    await instance?.close();
  });

  it("@sentry/node's withMonitor creates the monitor and records its in_progress → ok check-in", async () => {
    Sentry.init({ dsn, defaultIntegrations: false, environment: "compat" });
    // The job runs until Faultline shows its start: the SDK sends the `ok` only then (a job that
    // ends at once races its own `in_progress`, which creates the monitor, to the server).
    const seenRunning: unknown[] = [];
    const result = await Sentry.withMonitor(
      "hourly-sync",
      async () => {
        await expect
          .poll(
            async () => {
              const response = await fetch(`${server.url}/api/0/organizations/acme/monitors/hourly-sync/checkins/`, {
                headers: bearer(seed.allScopesToken),
              });
              return response.status === 200 ? ((await response.json()) as Array<{ status: string }>) : [];
            },
            { timeout: 5000, interval: 20 },
          )
          .toEqual([expect.objectContaining({ status: "in_progress", environment: "compat" })]);
        seenRunning.push(true);
        return "done";
      },
      {
        schedule: { type: "crontab", value: "0 * * * *" },
        checkinMargin: 2,
        maxRuntime: 15,
        timezone: "Europe/Vienna",
      },
    );
    expect(result).toBe("done");
    expect(seenRunning).toEqual([true]);
    expect(await Sentry.flush(5000)).toBe(true);

    const monitor = await get("/api/0/organizations/acme/monitors/hourly-sync/");
    expect(monitor).toMatchObject({
      slug: "hourly-sync",
      status: "active",
      config: {
        schedule_type: "crontab",
        schedule: "0 * * * *",
        checkin_margin: 2,
        max_runtime: 15,
        timezone: "Europe/Vienna",
      },
      project: { slug: "web" },
      environments: [{ name: "compat", status: "ok" }],
    });
    // One check-in: the SDK's in_progress, finished by its ok (same check_in_id), with the SDK's duration.
    const checkIns = await get("/api/0/organizations/acme/monitors/hourly-sync/checkins/");
    expect(checkIns).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^[0-9a-f]{32}$/), environment: "compat", status: "ok" }),
    ]);
    expect(checkIns[0].duration).toEqual(expect.any(Number));
  });

  it("sentry-cli monitors run wraps a command and records its check-ins, failing ones as error", async () => {
    const env = { url: server.url, token: seed.allScopesToken, org: "acme", project: "web", dsn };
    const schedule = ["--schedule", "*/5 * * * *", "--check-in-margin", "3", "--failure-issue-threshold", "2"];
    await sentryCli(["monitors", "run", ...schedule, "cli-job", "--", "node", "-e", "process.exit(0)"], env);
    await expect(
      sentryCli(["monitors", "run", "-e", "staging", "cli-job", "--", "node", "-e", "process.exit(3)"], env),
    ).rejects.toMatchObject({ code: 3 });

    const monitor = await get("/api/0/organizations/acme/monitors/cli-job/");
    expect(monitor.config).toMatchObject({ schedule: "*/5 * * * *", checkin_margin: 3, failure_issue_threshold: 2 });
    expect(monitor.environments.map((e: { name: string; status: string }) => [e.name, e.status])).toEqual([
      ["production", "ok"],
      ["staging", "error"],
    ]);
    const checkIns = await get("/api/0/organizations/acme/monitors/cli-job/checkins/");
    expect(checkIns.map((c: { environment: string; status: string }) => [c.environment, c.status])).toEqual([
      ["staging", "error"],
      ["production", "ok"],
    ]);
  });
});
