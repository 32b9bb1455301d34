import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature } from "../../src/verify.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { bearer } from "../helpers/server.js";

const MINUTE = 60_000;

/**
 * Issue alert rules end to end: CRUD and validation over HTTP, evaluation at ingest (a fake clock
 * drives time), and the `event.alert` / `event_alert.triggered` deliveries they enqueue.
 * Deliveries are sent only when a test runs the delivery task, so the outbox rows can be read.
 */
describe("issue alert rules", () => {
  let instance: TestInstance;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let now = new Date("2026-03-02T10:00:00.000Z");
  const advance = (minutes: number) => void (now = new Date(now.getTime() + minutes * MINUTE));

  async function call(method: string, path: string, body?: unknown, auth = token) {
    const init: RequestInit = { method, headers: { ...bearer(auth), "content-type": "application/json" } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const response = await instance.faultline.handler(new Request(`http://x${path}`, init));
    return {
      status: response.status,
      json:
        response.status === 204
          ? null
          : ((await response.json()) as Record<string, unknown> & { errors?: Record<string, string[]> }),
    };
  }

  /** A project with an `event.alert` hook, a capture function and a rule factory. */
  async function project(slug: string, organization = "acme") {
    const { api } = instance.faultline;
    const created = await api.projects.create({ organization, slug, platform: "node", features: ["servicehooks"] });
    const org = await api.organizations.get(organization);
    const hook = await call("POST", `/api/0/projects/${organization}/${slug}/hooks/`, {
      url: `${receiver.url}/${organization}/${slug}`,
      events: ["event.alert"],
    });
    expect(hook.status).toBe(201);
    const capture = captureFor(instance.faultline, { id: created.id, organizationId: org?.id as string });
    const rule = async (body: Record<string, unknown>) => {
      const response = await call("POST", `/api/0/projects/${organization}/${slug}/rules/`, { frequency: 5, ...body });
      expect(response.status, JSON.stringify(response.json)).toBe(201);
      return response.json as { id: string; name: string };
    };
    /** Captures an event (fingerprint → issue) and returns the names of the rules that fired for it. */
    const send = async (fingerprint: string, overrides: Record<string, unknown> = {}) => {
      const { eventId } = await capture(errorEvent({ fingerprint: [fingerprint], ...overrides }));
      return { eventId, fired: await firedFor(eventId) };
    };
    return { project: created, hook: hook.json as { id: string; secret: string }, rule, send };
  }

  async function firedFor(eventId: string): Promise<string[]> {
    const db = instance.faultline.container.resolve(tokens.Db);
    const rows = await db.selectFrom("deliveries").select("body").where("event_type", "=", "event.alert").execute();
    const bodies = rows.map(
      (row) => JSON.parse(row.body) as { event: { event_id: string }; triggering_rules: string[] },
    );
    return bodies
      .filter((body) => body.event.event_id === eventId)
      .flatMap((body) => body.triggering_rules)
      .sort();
  }

  async function issueOf(eventId: string): Promise<string> {
    const db = instance.faultline.container.resolve(tokens.Db);
    const row = await db
      .selectFrom("events")
      .select("issue_id")
      .where("event_id", "=", eventId)
      .executeTakeFirstOrThrow();
    return String(row.issue_id);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    instance = await createTestInstance({
      worker: false,
      clock: { now: () => now },
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 },
    });
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "acme" });
    const owner = await api.users.create({ username: "owner" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    await api.organizations.create({ slug: "globex" });
    await api.members.add({ organization: "globex", user: owner.id, role: "owner" });
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
  });
  afterAll(async () => {
    await instance?.close();
    await receiver?.close();
  });

  describe("CRUD and validation", () => {
    it("creates with defaults, reads, lists, updates only the fields sent, deletes", async () => {
      await project("crud");
      const base = "/api/0/projects/acme/crud/rules/";
      const created = await call("POST", base, { name: "New issues", conditions: [{ id: "first_seen_event" }] });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({
        id: expect.stringMatching(/^\d+$/),
        name: "New issues",
        actionMatch: "all",
        conditions: [{ id: "first_seen_event" }],
        filters: [],
        frequency: 30,
        environment: null,
        status: "active",
        projects: ["crud"],
        dateCreated: now.toISOString(),
        filterMatch: "all",
        actions: [],
        snooze: false,
      });
      const id = created.json?.id as string;
      expect((await call("GET", `${base}${id}/`)).json).toEqual(created.json);
      const list = await call("GET", base);
      expect((list.json as unknown as Array<{ id: string }>).map((rule) => rule.id)).toEqual([id]);
      // Another organization's project of the same slug does not see it.
      await instance.faultline.api.projects.create({ organization: "globex", slug: "crud" });
      expect((await call("GET", `/api/0/projects/globex/crud/rules/${id}/`)).status).toBe(404);
      expect((await call("PUT", `/api/0/projects/globex/crud/rules/${id}/`, { name: "stolen" })).status).toBe(404);
      expect((await call("DELETE", `/api/0/projects/globex/crud/rules/${id}/`)).status).toBe(404);
      expect((await call("GET", "/api/0/projects/globex/crud/rules/")).json).toEqual([]);
      const updated = await call("PUT", `${base}${id}/`, { frequency: 60, environment: "production" });
      expect(updated.json).toMatchObject({
        name: "New issues",
        conditions: [{ id: "first_seen_event" }],
        frequency: 60,
        environment: "production",
      });
      expect((await call("DELETE", `${base}${id}/`)).status).toBe(204);
      expect((await call("GET", `${base}${id}/`)).status).toBe(404);
      expect((await call("GET", `${base}99999999999/`)).status).toBe(404);
      expect((await call("GET", `${base}abc/`)).status).toBe(404);
      expect((await call("GET", "/api/0/projects/acme/nope/rules/")).status).toBe(404);
    });

    it("needs alerts:read to read and alerts:write to change", async () => {
      const { api } = instance.faultline;
      const owner = await api.users.get("owner");
      const reader = (await api.tokens.create({ user: owner?.id as string, scopes: ["alerts:read"] })).token;
      const events = (await api.tokens.create({ user: owner?.id as string, scopes: ["event:read"] })).token;
      expect((await call("GET", "/api/0/projects/acme/crud/rules/", undefined, reader)).status).toBe(200);
      expect(
        (
          await call(
            "POST",
            "/api/0/projects/acme/crud/rules/",
            { name: "x", conditions: [{ id: "every_event" }] },
            reader,
          )
        ).status,
      ).toBe(403);
      expect((await call("GET", "/api/0/projects/acme/crud/rules/", undefined, events)).status).toBe(403);
    });

    it("answers 400 with field errors for bad definitions, never 500", async () => {
      const base = "/api/0/projects/acme/crud/rules/";
      const cases: Array<[unknown, string, RegExp]> = [
        [{ name: "x", conditions: [{ id: "nonsense" }] }, "conditions.0.id", /Unknown condition id: "nonsense"/],
        [{ name: "x", conditions: [{}] }, "conditions.0.id", /condition id is required/],
        [
          { name: "x", conditions: [{ id: "event_frequency", value: 10, interval: "2m" }] },
          "conditions.0.interval",
          /1m, 5m, 15m, 1h, 1d/,
        ],
        [{ name: "x", conditions: [{ id: "event_frequency", interval: "1m" }] }, "conditions.0.value", /number/],
        [{ name: "x", conditions: [{ id: "event_frequency", value: -1, interval: "1m" }] }, "conditions.0.value", /./],
        [{ name: "x", conditions: [] }, "conditions", /at least one condition/],
        [{ name: "x" }, "conditions", /./],
        [{ conditions: [{ id: "every_event" }] }, "name", /./],
        [{ name: "x", conditions: [{ id: "every_event" }], frequency: 1 }, "frequency", /at least 5/],
        [{ name: "x", conditions: [{ id: "every_event" }], frequency: 50_000 }, "frequency", /43200/],
        [{ name: "x", conditions: [{ id: "every_event" }], actionMatch: "none" }, "actionMatch", /all or any/],
        [
          { name: "x", conditions: [{ id: "every_event" }], filters: [{ id: "bogus" }] },
          "filters.0.id",
          /Unknown filter id/,
        ],
        [
          { name: "x", conditions: [{ id: "every_event" }], filters: [{ id: "level", match: "gt", level: "error" }] },
          "filters.0.match",
          /eq, gte, lte/,
        ],
        [
          { name: "x", conditions: [{ id: "every_event" }], filters: [{ id: "level", match: "eq", level: "loud" }] },
          "filters.0.level",
          /fatal/,
        ],
        [
          {
            name: "x",
            conditions: [{ id: "every_event" }],
            filters: [{ id: "tagged_event", key: "browser", match: "eq" }],
          },
          "filters.0.value",
          /value is required/,
        ],
        [{ name: "x", conditions: [{ id: "every_event" }], status: "paused" }, "status", /active or disabled/],
        [[1, 2], "body", /./],
      ];
      for (const [body, field, message] of cases) {
        const response = await call("POST", base, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(
          response.json?.errors?.[field]?.join(" "),
          `${JSON.stringify(body)} → ${JSON.stringify(response.json)}`,
        ).toMatch(message);
      }
      expect((await call("POST", base, "{not json")).status).toBe(400);
      const rule = await call("POST", base, { name: "ok", conditions: [{ id: "every_event" }] });
      const badUpdate = await call("PUT", `${base}${rule.json?.id as string}/`, {
        conditions: [{ id: "event_frequency", value: 1, interval: "7m" }],
      });
      expect(badUpdate.status).toBe(400);
      expect(badUpdate.json?.errors?.["conditions.0.interval"]).toBeDefined();
    });
  });

  describe("conditions", () => {
    it("first_seen, regression, reappeared and every_event fire exactly when documented; all/any combine them", async () => {
      const p = await project("conditions");
      await p.rule({ name: "first", conditions: [{ id: "first_seen_event" }] });
      await p.rule({ name: "regression", conditions: [{ id: "regression_event" }] });
      await p.rule({ name: "reappeared", conditions: [{ id: "reappeared_event" }] });
      await p.rule({ name: "every", conditions: [{ id: "every_event" }] });
      await p.rule({
        name: "all-first-and-every",
        actionMatch: "all",
        conditions: [{ id: "first_seen_event" }, { id: "every_event" }],
      });
      await p.rule({
        name: "all-first-and-regression",
        actionMatch: "all",
        conditions: [{ id: "first_seen_event" }, { id: "regression_event" }],
      });
      await p.rule({
        name: "any-first-or-regression",
        actionMatch: "any",
        conditions: [{ id: "first_seen_event" }, { id: "regression_event" }],
      });

      const first = await p.send("cond");
      expect(first.fired).toEqual(["all-first-and-every", "any-first-or-regression", "every", "first"]);
      const issue = await issueOf(first.eventId);
      expect((await p.send("cond")).fired).toEqual([]); // not new; every_event throttled (frequency 5)

      advance(10);
      expect((await call("PUT", `/api/0/organizations/acme/issues/${issue}/`, { status: "resolved" })).status).toBe(
        200,
      );
      advance(1);
      expect((await p.send("cond")).fired).toEqual(["any-first-or-regression", "every", "regression"]);

      advance(10);
      await call("PUT", `/api/0/organizations/acme/issues/${issue}/`, {
        status: "ignored",
        statusDetails: { ignoreDuration: 5 },
      });
      expect((await p.send("cond")).fired).toEqual([]); // ignored: rules apply to unresolved issues only
      advance(10);
      expect((await p.send("cond")).fired).toEqual(["every", "reappeared"]); // the snooze ran out

      advance(10);
      await call("PUT", `/api/0/organizations/acme/issues/${issue}/`, {
        status: "ignored",
        statusDetails: { ignoreCount: 2 },
      });
      expect((await p.send("cond")).fired).toEqual([]);
      expect((await p.send("cond")).fired).toEqual(["every", "reappeared"]); // escalating
    });

    it("event_frequency fires on more than N events in the interval, and counts nothing older", async () => {
      const p = await project("frequency");
      await p.rule({ name: "burst", conditions: [{ id: "event_frequency", value: 2, interval: "5m" }] });
      await p.rule({
        name: "daily",
        conditions: [{ id: "event_frequency", value: 4, interval: "1d" }],
        frequency: 1440,
      });
      expect((await p.send("freq")).fired).toEqual([]);
      expect((await p.send("freq")).fired).toEqual([]);
      expect((await p.send("freq")).fired).toEqual(["burst"]); // 3 > 2
      advance(6); // the first three are now outside the 5m window (and the 5-minute throttle has passed)
      expect((await p.send("freq")).fired).toEqual([]);
      expect((await p.send("freq")).fired).toEqual(["daily"]); // 5 today > 4; only 2 in the last 5 minutes
      expect((await p.send("freq")).fired).toEqual(["burst"]);
      advance(24 * 60 + 5);
      expect((await p.send("freq")).fired).toEqual([]); // yesterday's events no longer count
    });
  });

  describe("filters", () => {
    it("level, tagged_event and issue_occurrences let through exactly the documented events", async () => {
      const p = await project("filters");
      const every = (name: string, filter: Record<string, unknown>) =>
        p.rule({ name, conditions: [{ id: "every_event" }], filters: [filter] });
      await every("level=warning", { id: "level", match: "eq", level: "warning" });
      await every("level>=error", { id: "level", match: "gte", level: "error" });
      await every("level<=info", { id: "level", match: "lte", level: "info" });
      await every("browser eq", { id: "tagged_event", key: "Browser", match: "eq", value: "firefox" });
      await every("browser ne", { id: "tagged_event", key: "browser", match: "ne", value: "firefox" });
      await every("browser co", { id: "tagged_event", key: "browser", match: "co", value: "FOX" });
      await every("browser nc", { id: "tagged_event", key: "browser", match: "nc", value: "fox" });
      await every("browser is", { id: "tagged_event", key: "browser", match: "is" });
      await every("browser ns", { id: "tagged_event", key: "browser", match: "ns" });
      await every("seen twice", { id: "issue_occurrences", value: 2 });

      expect((await p.send("f1", { level: "warning", tags: { browser: "Firefox" } })).fired).toEqual([
        "browser co",
        "browser eq",
        "browser is",
        "level=warning",
      ]);
      expect((await p.send("f2", { level: "fatal", tags: { browser: "Chrome" } })).fired).toEqual([
        "browser is",
        "browser nc",
        "browser ne",
        "level>=error",
      ]);
      expect((await p.send("f3", { level: "info" })).fired).toEqual([
        "browser nc",
        "browser ne",
        "browser ns",
        "level<=info",
      ]);
      // The same issue again: only rules that did not fire for it yet and now match.
      expect((await p.send("f3", { level: "error", tags: { browser: "firefox" } })).fired).toEqual([
        "browser co",
        "browser eq",
        "browser is",
        "level>=error",
        "seen twice",
      ]);
    });

    it("several filters must all hold", async () => {
      const p = await project("filters-all");
      await p.rule({
        name: "prod errors on firefox",
        conditions: [{ id: "every_event" }],
        filters: [
          { id: "level", match: "gte", level: "error" },
          { id: "tagged_event", key: "browser", match: "eq", value: "Firefox" },
        ],
      });
      expect((await p.send("a", { level: "warning", tags: { browser: "Firefox" } })).fired).toEqual([]);
      expect((await p.send("b", { level: "error", tags: { browser: "Chrome" } })).fired).toEqual([]);
      expect((await p.send("c", { level: "error", tags: { browser: "Firefox" } })).fired).toEqual([
        "prod errors on firefox",
      ]);
    });
  });

  describe("scoping", () => {
    it("a rule with an environment fires only for that environment's events, and counts only them", async () => {
      const p = await project("envs");
      await p.rule({ name: "prod", environment: "production", conditions: [{ id: "every_event" }] });
      await p.rule({
        name: "prod burst",
        environment: "production",
        conditions: [{ id: "event_frequency", value: 1, interval: "1m" }],
      });
      expect((await p.send("e1", { environment: "production" })).fired).toEqual(["prod"]);
      expect((await p.send("e2", { environment: "staging" })).fired).toEqual([]);
      expect((await p.send("e3")).fired).toEqual([]);
      for (let i = 0; i < 3; i++) expect((await p.send("e4", { environment: "staging" })).fired).toEqual([]);
      expect((await p.send("e4", { environment: "production" })).fired).toEqual(["prod"]); // 1 production event: not more than 1
      expect((await p.send("e4", { environment: "production" })).fired).toEqual(["prod burst"]);
    });

    it("disabled rules never fire, whether created disabled or disabled later", async () => {
      const p = await project("disabled");
      await p.rule({ name: "off", status: "disabled", conditions: [{ id: "every_event" }] });
      const later = await p.rule({ name: "later", conditions: [{ id: "every_event" }] });
      expect((await p.send("d1")).fired).toEqual(["later"]);
      expect(
        (await call("PUT", `/api/0/projects/acme/disabled/rules/${later.id}/`, { status: "disabled" })).json,
      ).toMatchObject({ status: "disabled" });
      expect((await p.send("d2")).fired).toEqual([]);
      expect((await p.send("d3", { level: "fatal" })).fired).toEqual([]);
    });

    it("frequency: at most one firing per issue per rule per window; other issues are not held back", async () => {
      const p = await project("throttle");
      await p.rule({ name: "every 10", frequency: 10, conditions: [{ id: "every_event" }] });
      expect((await p.send("t1")).fired).toEqual(["every 10"]);
      expect((await p.send("t2")).fired).toEqual(["every 10"]);
      advance(9);
      expect((await p.send("t1")).fired).toEqual([]);
      advance(1);
      expect((await p.send("t1")).fired).toEqual(["every 10"]);
      expect((await p.send("t1")).fired).toEqual([]);
    });
  });

  describe("deliveries", () => {
    it("a subscribed hook gets one signed event.alert listing every rule that fired; apps get event_alert.triggered per rule; nobody else gets anything", async () => {
      const { api } = instance.faultline;
      const p = await project("deliver");
      const createdOnly = await call("POST", "/api/0/projects/acme/deliver/hooks/", {
        url: `${receiver.url}/created-only`,
        events: ["event.created"],
      });
      const bystander = await project("bystander");
      await bystander.rule({ name: "bystander rule", conditions: [{ id: "every_event" }] });
      await p.rule({ name: "Every error", conditions: [{ id: "every_event" }] });
      await p.rule({ name: "New issue", conditions: [{ id: "first_seen_event" }] });
      await p.rule({ name: "Never", conditions: [{ id: "regression_event" }] });
      const alerts = await api.apps.create({
        organization: "acme",
        name: "Alerts",
        slug: "alerts-app",
        isInternal: true,
        webhookUrl: `${receiver.url}/app/alerts`,
        events: ["event_alert"],
        scopes: [],
      });
      await api.apps.create({
        organization: "acme",
        name: "Issues",
        slug: "issues-app",
        isInternal: true,
        webhookUrl: `${receiver.url}/app/issues`,
        events: ["issue"],
        scopes: [],
      });
      await api.apps.create({
        organization: "globex",
        name: "Globex alerts",
        slug: "globex-alerts",
        isInternal: true,
        webhookUrl: `${receiver.url}/app/globex`,
        events: ["event_alert"],
        scopes: [],
      });

      const { eventId } = await p.send("delivered", { tags: { browser: "Firefox" }, environment: "production" });
      await instance.faultline.worker.runDue("delivery.send");
      const hookRequests = receiver.received.filter((r) => r.path === "/acme/deliver");
      expect(hookRequests).toHaveLength(1);
      const [request] = hookRequests;
      if (!request) throw new Error("no event.alert delivery");
      expect(request.headers["x-svc-hook-event"]).toBe("event.alert");
      expect(request.headers["x-svc-hook-guid"]).toBe(p.hook.id);
      expect(verifySignature(request.body, request.headers["x-svc-hook-signature"] as string, p.hook.secret)).toBe(
        true,
      );
      expect(verifySignature(request.body, request.headers["x-svc-hook-signature"] as string, "0".repeat(64))).toBe(
        false,
      );
      expect(request.json).toEqual({
        id: request.headers["webhook-id"],
        project: "deliver",
        project_name: "deliver",
        culprit: "handler(app.js)",
        url: expect.stringMatching(/\/api\/0\/organizations\/acme\/issues\/\d+\/$/),
        message: "x is undefined",
        triggering_rules: ["Every error", "New issue"],
        event: {
          event_id: eventId,
          level: "error",
          tags: expect.arrayContaining([
            ["browser", "Firefox"],
            ["environment", "production"],
          ]),
          platform: "node",
          datetime: now.toISOString().replace(/Z$/, "000Z"), // microseconds, as the seed shows
        },
      });

      const appRequests = receiver.received.filter((r) => r.headers["svc-hook-resource"] === "event_alert");
      expect(appRequests.map((r) => r.path)).toEqual(["/app/alerts", "/app/alerts"]); // not the issue-only app, not globex
      for (const appRequest of appRequests) {
        expect(appRequest.headers["svc-hook-resource"]).toBe("event_alert");
        expect(
          verifySignature(appRequest.body, appRequest.headers["svc-hook-signature"] as string, alerts.clientSecret),
        ).toBe(true);
        expect(appRequest.json).toMatchObject({
          action: "triggered",
          installation: { uuid: alerts.installation?.uuid },
          actor: { type: "application", id: "svc", name: "svc" },
          data: {
            event: {
              event_id: eventId,
              issue_url: expect.stringContaining("/issues/"),
              web_url: expect.any(String),
              url: expect.stringContaining(`/events/${eventId}/`),
            },
          },
        });
      }
      expect(appRequests.map((r) => (r.json.data as { triggered_rule: string }).triggered_rule).sort()).toEqual([
        "Every error",
        "New issue",
      ]);
      expect(
        receiver.received.filter((r) => r.path === "/created-only").map((r) => r.headers["x-svc-hook-event"]),
      ).toEqual(["event.created"]);
      expect(receiver.received.filter((r) => r.path === "/acme/bystander")).toEqual([]);
      void createdOnly;
    });

    it("nothing crosses organizations: another organization's rule alerts only its own destinations", async () => {
      const globex = await project("globex-web", "globex");
      await globex.rule({ name: "Globex every", conditions: [{ id: "every_event" }] });
      const before = receiver.received.length;
      const { eventId, fired } = await globex.send("globex-only");
      expect(fired).toEqual(["Globex every"]);
      await instance.faultline.worker.runDue("delivery.send");
      const got = receiver.received
        .slice(before)
        .filter(
          (r) => r.headers["x-svc-hook-event"] === "event.alert" || r.headers["svc-hook-resource"] === "event_alert",
        );
      expect(got.map((r) => r.path).sort()).toEqual(["/app/globex", "/globex/globex-web"]);
      expect(got.every((r) => JSON.stringify(r.json).includes(eventId))).toBe(true);
    });
  });
});
