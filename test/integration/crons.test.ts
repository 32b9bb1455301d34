import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer } from "../helpers/server.js";

/**
 * Cron monitors (docs/crons.md): upserted from SDKs' check-ins, Sentry's monitor API, missed and
 * timed-out check-ins found by the worker exactly once across two instances, and the monitor
 * issue opened after the failure threshold and resolved on recovery.
 */
let now = Date.parse("2026-03-02T10:00:30Z");
const clock = { now: () => new Date(now) };
const at = (iso: string) => void (now = Date.parse(iso));

let instance: TestInstance;
let second: Faultline<FaultlineApi>;
let seed: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;
let key: string;

beforeAll(async () => {
  instance = await createTestInstance({ clock, worker: false, logger: silentLogger, ingest: { isolation: "inline" } });
  // Another replica on the same schema: the worker's claims must hold across instances.
  second = createFaultline({
    database: instance.database,
    schema: instance.schema,
    clock,
    worker: false,
    logger: silentLogger,
  });
  seed = await seedOrganization(instance.faultline);
  other = await seedOrganization(instance.faultline, "globex");
  key = seed.project.keys[0]?.public as string;
});

afterAll(async () => {
  await second.close();
  await instance.close();
});

async function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const response = await instance.faultline.handler(
    new Request(`http://x${path}`, {
      method: init.method ?? "GET",
      headers: { ...bearer(init.token ?? seed.allScopesToken), "content-type": "application/json" },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

async function checkIn(payload: Record<string, unknown>) {
  const body = `{}\n{"type":"check_in"}\n${JSON.stringify(payload)}\n`;
  const response = await instance.faultline.handler(
    new Request(`http://x/api/${seed.project.id}/envelope/?sentry_key=${key}`, { method: "POST", body }),
  );
  expect(response.status).toBe(200);
}

const CONFIG = {
  schedule: { type: "crontab", value: "0 * * * *" },
  checkin_margin: 5,
  max_runtime: 10,
  timezone: "Europe/Vienna",
  failure_issue_threshold: 2,
  recovery_threshold: 1,
};
const MONITOR = "/api/0/organizations/acme/monitors/nightly/";
const checkInsOf = async () =>
  (await api(`${MONITOR}checkins/`)).body.map((c: Record<string, unknown>) => [c.status, c.expectedTime]);
const monitorIssues = async () =>
  (
    await api(
      `/api/0/organizations/acme/issues/?query=${encodeURIComponent("tags[monitor.slug]:nightly")}&statsPeriod=`,
    )
  ).body;

describe("cron monitors", { timeout: 60_000 }, () => {
  it("creates the monitor from a check-in's monitor_config and shows it in Sentry's shapes", async () => {
    const id = randomUUID().replaceAll("-", "");
    await checkIn({ check_in_id: id, monitor_slug: "nightly", status: "in_progress", monitor_config: CONFIG });
    at("2026-03-02T10:00:42Z");
    await checkIn({ check_in_id: id, monitor_slug: "nightly", status: "ok", duration: 12.5 });

    const { status, body } = await api(MONITOR);
    expect(status).toBe(200);
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      slug: "nightly",
      name: "nightly",
      status: "active",
      type: "cron_job",
      isMuted: false,
      config: {
        schedule_type: "crontab",
        schedule: "0 * * * *",
        checkin_margin: 5,
        max_runtime: 10,
        timezone: "Europe/Vienna",
        failure_issue_threshold: 2,
        recovery_threshold: 1,
        alert_rule_id: null,
      },
      dateCreated: "2026-03-02T10:00:30.000Z",
      project: { id: seed.project.id, slug: "web", name: "web", platform: "node" },
      environments: [
        {
          name: "production",
          status: "ok",
          isMuted: false,
          dateCreated: "2026-03-02T10:00:30.000Z",
          lastCheckIn: "2026-03-02T10:00:30.000Z",
          nextCheckIn: "2026-03-02T11:00:00.000Z",
          nextCheckInLatest: "2026-03-02T11:05:00.000Z",
          activeIncident: null,
        },
      ],
      owner: null,
    });
    expect((await api(`${MONITOR}checkins/`)).body).toEqual([
      {
        id,
        environment: "production",
        status: "ok",
        duration: 12_500,
        dateCreated: "2026-03-02T10:00:30.000Z",
        dateAdded: "2026-03-02T10:00:30.000Z",
        dateUpdated: "2026-03-02T10:00:42.000Z",
        expectedTime: null,
      },
    ]);
  });

  it("marks a missed check-in once, with two instances running the task together", async () => {
    at("2026-03-02T11:04:59Z");
    await instance.faultline.worker.runDue("crons.missed-check-ins");
    expect(await checkInsOf()).toHaveLength(1);
    at("2026-03-02T11:06:00Z");
    await Promise.all([
      instance.faultline.worker.runDue("crons.missed-check-ins"),
      second.worker.runDue("crons.missed-check-ins"),
      instance.faultline.worker.runDue("crons.missed-check-ins"),
    ]);
    expect(await checkInsOf()).toEqual([
      ["missed", "2026-03-02T11:00:00.000Z"],
      ["ok", null],
    ]);
    const environment = (await api(MONITOR)).body.environments[0];
    expect(environment).toMatchObject({ status: "error", nextCheckIn: "2026-03-02T12:00:00.000Z" });
    // One failure of the two the threshold asks for: no issue yet.
    expect(await monitorIssues()).toEqual([]);
  });

  it("times out a check-in past max_runtime, and the second failure opens the monitor issue", async () => {
    at("2026-03-02T12:00:10Z");
    const id = randomUUID().replaceAll("-", "");
    await checkIn({ check_in_id: id, monitor_slug: "nightly", status: "in_progress" });
    at("2026-03-02T12:10:09Z");
    await instance.faultline.worker.runDue("crons.timed-out-check-ins");
    expect((await checkInsOf())[0]).toEqual(["in_progress", "2026-03-02T12:00:00.000Z"]);
    at("2026-03-02T12:10:11Z");
    await Promise.all([
      instance.faultline.worker.runDue("crons.timed-out-check-ins"),
      second.worker.runDue("crons.timed-out-check-ins"),
    ]);
    expect((await checkInsOf())[0]).toEqual(["timeout", "2026-03-02T12:00:00.000Z"]);
    // A late `ok` for a check-in that timed out is dropped.
    await checkIn({ check_in_id: id, monitor_slug: "nightly", status: "ok" });
    expect((await checkInsOf())[0]).toEqual(["timeout", "2026-03-02T12:00:00.000Z"]);

    const issues = await monitorIssues();
    expect(
      issues.map((issue: Record<string, unknown>) => [issue.title, issue.level, issue.status, issue.count]),
    ).toEqual([["Cron failure: nightly", "error", "unresolved", "1"]]);
    const environment = (await api(MONITOR)).body.environments[0];
    expect(environment.activeIncident).toEqual({ issueId: issues[0].id });
  });

  it("resolves the monitor issue after recovery_threshold ok check-ins, with an activity", async () => {
    at("2026-03-02T13:00:20Z");
    await checkIn({ monitor_slug: "nightly", status: "ok" });
    const [issue] = await monitorIssues();
    expect(issue.status).toBe("resolved");
    const detail = (await api(`/api/0/organizations/acme/issues/${issue.id}/`)).body;
    expect(detail.activity.map((entry: Record<string, unknown>) => entry.type)).toContain("set_resolved");
    expect((await api(MONITOR)).body.environments[0]).toMatchObject({ status: "ok", activeIncident: null });
  });

  it("drops and counts a check-in of an unknown monitor without config, and a malformed one", async () => {
    await checkIn({ monitor_slug: "ghost", status: "ok" });
    await checkIn({ monitor_slug: "ghost", status: "bogus" });
    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    const rows = await instance.faultline.container
      .resolve(tokens.Db)
      .selectFrom("ingest_outcomes")
      .select(["outcome", "reason", "quantity"])
      .where("category", "=", "monitor")
      .where("outcome", "=", "invalid")
      .orderBy("reason")
      .execute();
    expect(rows.map((row) => [row.reason, Number(row.quantity)])).toEqual([
      ["finalized", 1],
      ["payload", 1],
      ["unknown_monitor", 1],
    ]);
    expect((await api("/api/0/organizations/acme/monitors/ghost/")).status).toBe(404);
  });

  it("takes Sentry's HTTP check-in with the DSN key in the path", async () => {
    at("2026-03-02T14:00:05Z");
    const url = `http://x/api/${seed.project.id}/cron/nightly/${key}/?status=error&duration=1500`;
    const response = await instance.faultline.handler(new Request(url, { method: "POST" }));
    expect(response.status).toBe(202);
    const [latest] = (await api(`${MONITOR}checkins/`)).body;
    expect(latest).toMatchObject({ status: "error", duration: 1500, expectedTime: "2026-03-02T14:00:00.000Z" });
    const wrongKey = `http://x/api/${seed.project.id}/cron/nightly/${"0".repeat(32)}/?status=ok`;
    expect((await instance.faultline.handler(new Request(wrongKey, { method: "POST" }))).status).toBe(401);
  });

  it("creates, lists, changes and deletes monitors over the API; bad input is a 400 naming the field", async () => {
    const created = await api("/api/0/organizations/acme/monitors/", {
      method: "POST",
      body: { name: "Daily Report", project: "web", config: { schedule_type: "interval", schedule: [1, "day"] } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      slug: "daily-report",
      name: "Daily Report",
      config: { schedule_type: "interval", schedule: [1, "day"], checkin_margin: 1, max_runtime: 30, timezone: "UTC" },
      environments: [],
    });
    const page = await api("/api/0/organizations/acme/monitors/?per_page=1");
    expect(page.body.map((monitor: { slug: string }) => monitor.slug)).toEqual(["daily-report"]);
    expect(page.headers.get("link")).toContain('rel="next"; results="true"');

    const badCrontab = await api("/api/0/organizations/acme/monitors/", {
      method: "POST",
      body: { name: "x", project: "web", config: { schedule_type: "crontab", schedule: "61 * * * *" } },
    });
    expect(badCrontab.status).toBe(400);
    expect(badCrontab.body.errors).toEqual({ "config.schedule": ["invalid crontab: minute: 61 is outside 0-59"] });
    const badZone = await api("/api/0/organizations/acme/monitors/daily-report/", {
      method: "PUT",
      body: { config: { timezone: "Mars/Olympus" } },
    });
    expect(badZone.status).toBe(400);
    expect(badZone.body.errors).toEqual({ "config.timezone": ['unknown time zone "Mars/Olympus"'] });
    const taken = await api("/api/0/organizations/acme/monitors/daily-report/", {
      method: "PUT",
      body: { slug: "nightly" },
    });
    expect(taken.status).toBe(400);
    const changed = await api("/api/0/organizations/acme/monitors/daily-report/", {
      method: "PUT",
      body: { status: "disabled", config: { schedule_type: "crontab", schedule: "@daily" } },
    });
    expect(changed.body).toMatchObject({
      status: "disabled",
      config: { schedule: "@daily", schedule_type: "crontab" },
    });
    expect((await api("/api/0/organizations/acme/monitors/daily-report/", { method: "DELETE" })).status).toBe(204);
    expect((await api("/api/0/organizations/acme/monitors/daily-report/")).status).toBe(404);
  });

  it("keeps organizations apart and checks scopes", async () => {
    const foreign = { token: other.allScopesToken };
    expect((await api(MONITOR, foreign)).status).toBe(404);
    expect((await api(`${MONITOR}checkins/`, foreign)).status).toBe(404);
    expect((await api("/api/0/organizations/globex/monitors/", foreign)).body).toEqual([]);
    expect((await api("/api/0/organizations/globex/monitors/nightly/", foreign)).status).toBe(404);
    const readOnly = { token: seed.orgBoundToken };
    expect((await api(MONITOR, readOnly)).status).toBe(200);
    expect((await api(MONITOR, { ...readOnly, method: "DELETE" })).status).toBe(403);
  });
});
