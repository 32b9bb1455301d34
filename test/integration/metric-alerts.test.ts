import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES, tokens } from "../../src/index.js";
import { METRIC_ALERT_TASK_ID } from "../../src/plugins/alerts/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature } from "../../src/verify.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { bearer } from "../helpers/server.js";
import { silentLogger } from "../../src/logging/logger.js";

const MINUTE = 60_000;

/**
 * Metric alert rules: CRUD and validation, the once-a-minute evaluation by the worker (two
 * instances on one database, a fake clock), incidents and their `metric_alert.*` deliveries.
 */
describe("metric alerts", () => {
  let instance: TestInstance;
  let second: Faultline<FaultlineApi>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let app: { clientSecret: string; installation?: { uuid: string } | null };
  let captureWeb: ReturnType<typeof captureFor>;
  let captureApi: ReturnType<typeof captureFor>;
  let now = new Date("2026-04-06T09:00:00.000Z");
  const advance = (minutes: number) => void (now = new Date(now.getTime() + minutes * MINUTE));
  const base = "/api/0/organizations/acme/alert-rules/";

  async function call(method: string, path: string, body?: unknown, auth = token) {
    const init: RequestInit = { method, headers: { ...bearer(auth), "content-type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await instance.faultline.handler(new Request(`http://x${path}`, init));
    return {
      status: response.status,
      json:
        response.status === 204
          ? null
          : ((await response.json()) as Record<string, unknown> & { errors?: Record<string, string[]> }),
    };
  }

  async function createRule(body: Record<string, unknown>) {
    const response = await call("POST", base, body);
    expect(response.status, JSON.stringify(response.json)).toBe(201);
    return response.json as { id: string; name: string };
  }

  /** Both instances evaluate at the same moment, as two worker processes would. */
  const evaluateOnBoth = () =>
    Promise.all([instance.faultline.worker.runDue(METRIC_ALERT_TASK_ID), second.worker.runDue(METRIC_ALERT_TASK_ID)]);

  async function deliveriesOf(ruleId: string) {
    const db = instance.faultline.container.resolve(tokens.Db);
    const rows = await db
      .selectFrom("deliveries")
      .select(["event_type", "body", "destination_id"])
      .where("resource", "=", "metric_alert")
      .orderBy("date_created")
      .orderBy("seq")
      .execute();
    return rows.filter(
      (row) =>
        (JSON.parse(row.body) as { data: { metric_alert: { alert_rule: { id: string } } } }).data.metric_alert
          .alert_rule.id === ruleId,
    );
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    const clock = { now: () => now };
    const delivery = { allowPrivateNetworks: true, pollIntervalMs: 20 };
    instance = await createTestInstance({ worker: false, clock, delivery });
    second = createFaultline({
      database: instance.database,
      schema: instance.schema,
      logger: silentLogger,
      worker: false,
      clock,
      delivery,
    });
    await second.ready();
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const owner = await api.users.create({ username: "owner" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    const web = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    const apiProject = await api.projects.create({ organization: "acme", slug: "api", platform: "node" });
    await api.organizations.create({ slug: "globex" });
    await api.projects.create({ organization: "globex", slug: "gweb" });
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
    app = await api.apps.create({
      organization: "acme",
      name: "Pager",
      slug: "pager",
      isInternal: true,
      webhookUrl: `${receiver.url}/pager`,
      events: ["metric_alert"],
      scopes: [],
    });
    await api.apps.create({
      organization: "acme",
      name: "Issues",
      slug: "issues-only",
      isInternal: true,
      webhookUrl: `${receiver.url}/issues-only`,
      events: ["issue"],
      scopes: [],
    });
    await api.apps.create({
      organization: "globex",
      name: "Globex pager",
      slug: "globex-pager",
      isInternal: true,
      webhookUrl: `${receiver.url}/globex`,
      events: ["metric_alert"],
      scopes: [],
    });
    captureWeb = captureFor(instance.faultline, { id: web.id, organizationId: org.id });
    captureApi = captureFor(instance.faultline, { id: apiProject.id, organizationId: org.id });
  });
  afterAll(async () => {
    await second?.close();
    await instance?.close();
    await receiver?.close();
  });

  describe("CRUD and validation", () => {
    it("creates, reads, lists, updates only the fields sent (checked as a whole), deletes", async () => {
      const created = await call("POST", base, {
        name: "Errors",
        projects: ["web"],
        timeWindow: 5,
        triggers: [{ label: "critical", alertThreshold: 10 }],
      });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({
        id: expect.stringMatching(/^\d+$/),
        name: "Errors",
        projects: ["web"],
        query: "",
        aggregate: "count()",
        timeWindow: 5,
        thresholdType: "above",
        triggers: [{ label: "critical", alertThreshold: 10, actions: [] }],
        resolveThreshold: null,
        status: "active",
        dateCreated: now.toISOString(),
        // Sentry's required fields (#15).
        dateModified: now.toISOString(),
        organizationId: expect.stringMatching(/^\d+$/),
        createdBy: null,
      });
      const id = created.json?.id as string;
      expect((await call("GET", `${base}${id}/`)).json).toEqual(created.json);
      expect(((await call("GET", base)).json as unknown as Array<{ id: string }>).map((rule) => rule.id)).toContain(id);
      const updated = await call("PUT", `${base}${id}/`, { projects: ["web", "api"], query: "level:error" });
      expect(updated.json).toMatchObject({
        projects: ["web", "api"],
        query: "level:error",
        triggers: [{ label: "critical", alertThreshold: 10 }],
      });
      const conflicting = await call("PUT", `${base}${id}/`, {
        triggers: [
          { label: "critical", alertThreshold: 10 },
          { label: "warning", alertThreshold: 20 },
        ],
      });
      expect(conflicting.status).toBe(400);
      expect(conflicting.json?.errors?.triggers?.[0]).toMatch(/warning threshold must be below/);
      expect((await call("GET", `${base}${id}/incidents/`)).json).toEqual([]);
      // Addressed through another organization (the caller belongs to both): unknown there.
      const { api } = instance.faultline;
      await api.members.add({
        organization: "globex",
        user: (await api.users.get("owner"))?.id as string,
        role: "owner",
      });
      expect((await call("GET", `/api/0/organizations/globex/alert-rules/${id}/`)).status).toBe(404);
      expect((await call("PUT", `/api/0/organizations/globex/alert-rules/${id}/`, { name: "stolen" })).status).toBe(
        404,
      );
      expect((await call("GET", `/api/0/organizations/globex/alert-rules/${id}/incidents/`)).status).toBe(404);
      expect((await call("DELETE", `${base}${id}/`)).status).toBe(204);
      expect((await call("GET", `${base}${id}/`)).status).toBe(404);
      expect((await call("GET", `${base}${id}/incidents/`)).status).toBe(404);
      expect((await call("GET", `${base}x1/`)).status).toBe(404);
    });

    it("needs alerts:read to read and alerts:write to change", async () => {
      const { api } = instance.faultline;
      const owner = await api.users.get("owner");
      const reader = (await api.tokens.create({ user: owner?.id as string, scopes: ["alerts:read"] })).token;
      const other = (await api.tokens.create({ user: owner?.id as string, scopes: ["org:read"] })).token;
      expect((await call("GET", base, undefined, reader)).status).toBe(200);
      expect(
        (
          await call(
            "POST",
            base,
            { name: "x", projects: ["web"], timeWindow: 5, triggers: [{ label: "critical", alertThreshold: 1 }] },
            reader,
          )
        ).status,
      ).toBe(403);
      expect((await call("GET", base, undefined, other)).status).toBe(403);
    });

    it("answers 400 with field errors for bad definitions, never 500", async () => {
      const valid = {
        name: "x",
        projects: ["web"],
        timeWindow: 5,
        triggers: [{ label: "critical", alertThreshold: 10 }],
      };
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ ...valid, triggers: undefined }, "triggers", /required/],
        [{ ...valid, triggers: [] }, "triggers", /at least one trigger/],
        [{ ...valid, triggers: [{ label: "critical" }] }, "triggers.0.alertThreshold", /threshold is required/],
        [{ ...valid, triggers: [{ label: "critical", alertThreshold: "ten" }] }, "triggers.0.alertThreshold", /number/],
        [{ ...valid, triggers: [{ label: "severe", alertThreshold: 1 }] }, "triggers.0.label", /critical or warning/],
        [{ ...valid, triggers: [{ label: "warning", alertThreshold: 1 }] }, "triggers", /critical trigger is required/],
        [
          {
            ...valid,
            triggers: [
              { label: "critical", alertThreshold: 5 },
              { label: "critical", alertThreshold: 9 },
            ],
          },
          "triggers",
          /once/,
        ],
        [
          {
            ...valid,
            thresholdType: "below",
            triggers: [
              { label: "critical", alertThreshold: 5 },
              { label: "warning", alertThreshold: 2 },
            ],
          },
          "triggers",
          /above the critical/,
        ],
        [{ ...valid, resolveThreshold: 11 }, "resolveThreshold", /at or below/],
        [{ ...valid, timeWindow: 7 }, "timeWindow", /1, 5, 10, 15, 30, 60, 120, 240, 1440/],
        [{ ...valid, timeWindow: undefined }, "timeWindow", /./],
        [{ ...valid, aggregate: "avg(duration)" }, "aggregate", /count\(\)/],
        [{ ...valid, thresholdType: "sideways" }, "thresholdType", /above or below/],
        [{ ...valid, projects: [] }, "projects", /at least one project/],
        [{ ...valid, projects: ["gweb"] }, "projects", /Unknown project: gweb/],
        [{ ...valid, projects: ["web", "nope"] }, "projects", /Unknown project: nope/],
        [{ ...valid, query: "is:unresolved" }, "query", /"is:" is not supported/],
        [{ ...valid, query: "some words" }, "query", /free text/],
        [{ ...valid, query: "level:loud" }, "query", /unknown level/],
        [{ ...valid, name: "" }, "name", /./],
      ];
      for (const [body, field, message] of cases) {
        const response = await call("POST", base, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(
          response.json?.errors?.[field]?.join(" "),
          `${JSON.stringify(body)} → ${JSON.stringify(response.json)}`,
        ).toMatch(message);
      }
    });
  });

  describe("evaluation", () => {
    it("a burst gives open, warning, critical; quiet gives resolved; each transition delivered once with two workers", async () => {
      const rule = await createRule({
        name: "Error burst",
        projects: ["web"],
        query: "level:error",
        timeWindow: 5,
        triggers: [
          { label: "critical", alertThreshold: 6 },
          { label: "warning", alertThreshold: 3 },
        ],
        resolveThreshold: 2,
      });
      await evaluateOnBoth();
      expect(await deliveriesOf(rule.id)).toEqual([]);

      advance(1);
      const detected = now;
      for (let i = 0; i < 4; i++) await captureWeb(errorEvent({ fingerprint: [`burst-${i % 2}`] }));
      for (let i = 0; i < 5; i++) await captureWeb(errorEvent({ level: "warning", fingerprint: ["not-counted"] })); // outside the query
      for (let i = 0; i < 5; i++) await captureApi(errorEvent({ fingerprint: ["other-project"] })); // outside the projects
      await evaluateOnBoth();
      await evaluateOnBoth(); // the same minute again: nothing more
      expect((await deliveriesOf(rule.id)).map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.warning",
      ]);

      advance(1);
      for (let i = 0; i < 3; i++) await captureWeb(errorEvent({ fingerprint: ["burst-0"] }));
      await evaluateOnBoth();
      advance(1);
      await evaluateOnBoth(); // still 7 in the window: no change
      expect((await deliveriesOf(rule.id)).map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.warning",
        "metric_alert.critical",
      ]);

      advance(5);
      await evaluateOnBoth(); // the window has moved past every event
      const resolvedAt = now;
      advance(1);
      await evaluateOnBoth();
      const deliveries = await deliveriesOf(rule.id);
      expect(deliveries.map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.warning",
        "metric_alert.critical",
        "metric_alert.resolved",
      ]);

      await instance.faultline.worker.runDue("delivery.send");
      const requests = receiver.received.filter((r) => r.headers["svc-hook-resource"] === "metric_alert");
      expect(requests.map((r) => r.path)).toEqual(["/pager", "/pager", "/pager", "/pager"]); // never issues-only, never globex
      expect(new Set(requests.map((r) => r.headers["request-id"])).size).toBe(4);
      // Sent concurrently: ordering is not guaranteed (platform.md §5.3), so each is found by its action.
      expect(requests.map((r) => r.json.action as string).sort()).toEqual(["critical", "open", "resolved", "warning"]);
      const byAction = (action: string) => requests.find((r) => r.json.action === action);
      for (const request of requests) {
        expect(verifySignature(request.body, request.headers["svc-hook-signature"] as string, app.clientSecret)).toBe(
          true,
        );
        expect(request.json).toMatchObject({
          installation: { uuid: app.installation?.uuid },
          actor: { type: "application", id: "svc", name: "svc" },
        });
      }
      const incidentId = (byAction("open")?.json.data as { metric_alert: { id: string } }).metric_alert.id;
      expect(byAction("critical")?.json.data).toEqual({
        metric_alert: {
          id: incidentId,
          identifier: expect.stringMatching(/^\d+$/),
          title: "Error burst",
          status: "critical",
          alert_rule: { id: rule.id, name: "Error burst" },
          projects: ["web"],
          date_started: new Date(detected.getTime() - 5 * MINUTE).toISOString(),
          date_detected: detected.toISOString(),
          date_closed: null,
        },
        description_title: "Critical: Error burst",
        description_text: '7 events in the last 5 minutes matching "level:error"',
        web_url: `/api/0/organizations/acme/alert-rules/${rule.id}/incidents/`,
      });
      expect(byAction("resolved")?.json.data).toMatchObject({
        metric_alert: { id: incidentId, status: "resolved", date_closed: resolvedAt.toISOString() },
        description_title: "Resolved: Error burst",
      });

      const incidents = await call("GET", `${base}${rule.id}/incidents/`);
      expect(incidents.json).toEqual([
        {
          id: incidentId,
          identifier: expect.any(String),
          title: "Error burst",
          status: "resolved",
          alertRule: { id: rule.id, name: "Error burst" },
          dateStarted: new Date(detected.getTime() - 5 * MINUTE).toISOString(),
          dateDetected: detected.toISOString(),
          dateClosed: resolvedAt.toISOString(),
          activities: [
            { type: "open", value: 4, dateCreated: detected.toISOString() },
            { type: "warning", value: 4, dateCreated: detected.toISOString() },
            { type: "critical", value: 7, dateCreated: new Date(detected.getTime() + MINUTE).toISOString() },
            { type: "resolved", value: 0, dateCreated: resolvedAt.toISOString() },
          ],
        },
      ]);
      await call("DELETE", `${base}${rule.id}/`);
    });

    it("stays open between the resolve threshold and the triggers; count_unique(user) counts users", async () => {
      const rule = await createRule({
        name: "Users hit",
        projects: ["api"],
        aggregate: "count_unique(user)",
        query: "environment:production",
        timeWindow: 10,
        triggers: [{ label: "critical", alertThreshold: 2 }],
        resolveThreshold: 1,
      });
      advance(1);
      for (const user of ["a", "a", "b", "b"])
        await captureApi(errorEvent({ environment: "production", user: { id: user }, fingerprint: ["u"] }));
      await captureApi(errorEvent({ environment: "staging", user: { id: "c" }, fingerprint: ["u"] }));
      await evaluateOnBoth();
      expect(await deliveriesOf(rule.id)).toEqual([]); // 2 users: not above 2
      advance(0.5);
      await captureApi(errorEvent({ environment: "production", user: { id: "d" }, fingerprint: ["u"] }));
      advance(0.5);
      await evaluateOnBoth();
      expect((await deliveriesOf(rule.id)).map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.critical",
      ]);
      advance(9); // only "d" left in the window: 1 user, not below the resolve threshold of 1
      await evaluateOnBoth();
      expect((await deliveriesOf(rule.id)).map((d) => d.event_type)).toHaveLength(2);
      advance(2);
      await evaluateOnBoth();
      expect((await deliveriesOf(rule.id)).map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.critical",
        "metric_alert.resolved",
      ]);
      await call("DELETE", `${base}${rule.id}/`);
    });

    it("thresholdType below alerts on silence and resolves when events come back; disabled rules are never evaluated", async () => {
      const below = await createRule({
        name: "Too quiet",
        projects: ["web"],
        thresholdType: "below",
        timeWindow: 1,
        triggers: [
          { label: "critical", alertThreshold: 1 },
          { label: "warning", alertThreshold: 3 },
        ],
      });
      const disabled = await createRule({
        name: "Off",
        projects: ["web"],
        status: "disabled",
        timeWindow: 1,
        triggers: [{ label: "critical", alertThreshold: 0 }],
      });
      advance(1);
      await evaluateOnBoth();
      expect((await deliveriesOf(below.id)).map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.critical",
      ]); // 0 < 1
      advance(0.5);
      for (let i = 0; i < 2; i++) await captureWeb(errorEvent({ fingerprint: ["heartbeat"] }));
      advance(0.5);
      await evaluateOnBoth(); // 2 events in the last minute: below 3 but not below 1
      advance(0.5);
      for (let i = 0; i < 3; i++) await captureWeb(errorEvent({ fingerprint: ["heartbeat"] }));
      advance(0.5);
      await evaluateOnBoth(); // 3 in the last minute: crosses no trigger, no resolve threshold → resolved
      expect((await deliveriesOf(below.id)).map((d) => d.event_type)).toEqual([
        "metric_alert.open",
        "metric_alert.critical",
        "metric_alert.warning",
        "metric_alert.resolved",
      ]);
      expect(await deliveriesOf(disabled.id)).toEqual([]);
      await call("DELETE", `${base}${below.id}/`);
    });
  });
});
