import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { SessionBuffer } from "../../src/plugins/release-health/buffer.js";
import type { SessionContribution } from "../../src/plugins/release-health/parse.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Release health (docs/release-health.md) through the real envelope endpoint: session updates
 * and aggregates in, Sentry's sessions endpoint and `health=1` out, with exact numbers.
 */
const NOW = new Date("2026-03-10T12:30:00Z");
/** The instance's clock: NOW, moved on by the retention test (the last one). */
let now = NOW;
const at = (time: string) => `2026-03-10T${time}:00.000Z`;

describe("release health", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  const call = httpCaller(() => server.url);

  /** One envelope per item, as SDKs send session updates; the DSN's project is `project`. */
  async function send(project: { id: string; keys: Array<{ public: string }> }, type: string, payload: unknown) {
    const body = `{}\n${JSON.stringify({ type })}\n${JSON.stringify(payload)}\n`;
    const key = project.keys[0]?.public as string;
    const response = await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body,
    });
    expect(response.status).toBe(200);
  }
  const update = (sid: string, started: string, fields: Record<string, unknown>, environment = "production") => ({
    sid,
    started: at(started),
    timestamp: NOW.toISOString(),
    attrs: { release: "web@1.0", environment },
    ...fields,
  });
  const sessions = (query: string, token = acme.allScopesToken, org = "acme") =>
    call("GET", `/api/0/organizations/${org}/sessions/?${query}`, token);

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, clock: { now: () => now } });
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    server = await serveFaultline(instance.faultline);
    const web = acme.project;

    // init → exited: healthy.
    await send(web, "session", update("s1", "10:05", { did: "u1", init: true, status: "ok" }));
    await send(web, "session", update("s1", "10:05", { did: "u1", status: "exited", duration: 12 }));
    // init → crashed, the crash sent twice (an SDK retrying): one crashed session.
    await send(web, "session", update("s2", "10:10", { did: "u2", init: true, status: "ok" }));
    const crash = update("s2", "10:10", { did: "u2", status: "crashed", errors: 1 });
    await send(web, "session", crash);
    await send(web, "session", crash);
    // An error during the session, then its end: one errored session.
    await send(web, "session", update("s3", "11:20", { did: "u1", init: true, status: "ok" }));
    await send(web, "session", update("s3", "11:20", { did: "u1", status: "ok", errors: 1 }));
    await send(web, "session", update("s3", "11:20", { did: "u1", status: "exited", errors: 1 }));
    // Another environment, no user: ends abnormally.
    await send(web, "session", update("s4", "11:40", { init: true, status: "ok" }, "staging"));
    await send(web, "session", update("s4", "11:40", { status: "abnormal" }, "staging"));
    // A server SDK's aggregates for another release.
    await send(web, "sessions", {
      aggregates: [
        { started: at("11:00"), did: "u3", exited: 3, errored: 1, crashed: 1 },
        { started: at("11:01"), exited: 2 },
      ],
      attrs: { release: "web@2.0", environment: "production" },
    });
    // Dropped and counted invalid: no release; started six days ago.
    await send(web, "session", { sid: "bad", init: true, started: at("10:00"), attrs: {} });
    await send(web, "session", { ...update("old", "10:00", { init: true }), started: "2026-03-04T10:00:00Z" });
    // Another organization's sessions, same release name: never in acme's numbers.
    await send(globex.project, "session", update("g1", "10:05", { did: "u1", init: true, status: "crashed" }));

    for (const version of ["web@1.0", "web@2.0"])
      await call("POST", "/api/0/organizations/acme/releases/", acme.allScopesToken, { version, projects: ["web"] });
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const intervals = Array.from({ length: 24 }, (_, i) =>
    new Date(Date.parse("2026-03-09T13:00:00Z") + i * 3_600_000).toISOString().replace(".000Z", "Z"),
  );
  /** A series of 24 hours with `values` at 10:00, 11:00 and 12:00 (the last three). */
  const series = (ten: number | null, eleven: number | null, twelve: number | null, otherwise: number | null = 0) => [
    ...new Array<number | null>(21).fill(otherwise),
    ten,
    eleven,
    twelve,
  ];

  it("answers totals and series per release and environment, each session counted once", async () => {
    const fields =
      "field=sum(session)&field=crash_free_rate(session)&field=crash_free_rate(user)&field=count_unique(user)";
    const { status, body } = await sessions(
      `${fields}&groupBy=release&groupBy=environment&statsPeriod=24h&interval=1h`,
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      start: "2026-03-09T13:00:00Z",
      end: "2026-03-10T12:31:00Z",
      query: "",
      intervals,
      groups: [
        {
          by: { release: "web@2.0", environment: "production" },
          totals: {
            "sum(session)": 7,
            "crash_free_rate(session)": 1 - 1 / 7,
            "crash_free_rate(user)": 0,
            "count_unique(user)": 1,
          },
          series: {
            "sum(session)": series(0, 7, 0),
            "crash_free_rate(session)": series(null, 1 - 1 / 7, null, null),
            "crash_free_rate(user)": series(null, 0, null, null),
            "count_unique(user)": series(0, 1, 0),
          },
        },
        {
          by: { release: "web@1.0", environment: "production" },
          totals: {
            "sum(session)": 3,
            "crash_free_rate(session)": 1 - 1 / 3,
            "crash_free_rate(user)": 0.5,
            "count_unique(user)": 2,
          },
          series: {
            "sum(session)": series(2, 1, 0),
            "crash_free_rate(session)": series(0.5, 1, null, null),
            "crash_free_rate(user)": series(0.5, 1, null, null),
            "count_unique(user)": series(2, 1, 0),
          },
        },
        {
          by: { release: "web@1.0", environment: "staging" },
          totals: {
            "sum(session)": 1,
            "crash_free_rate(session)": 1,
            "crash_free_rate(user)": null,
            "count_unique(user)": 0,
          },
          series: {
            "sum(session)": series(0, 1, 0),
            "crash_free_rate(session)": series(null, 1, null, null),
            "crash_free_rate(user)": series(null, null, null, null),
            "count_unique(user)": series(0, 0, 0),
          },
        },
      ],
    });
  });

  it("counts users once over the window, and filters by environment and project", async () => {
    const whole = await sessions("field=sum(session)&field=count_unique(user)&field=crash_rate(user)&includeSeries=0");
    expect(whole.body.groups).toEqual([
      { by: {}, totals: { "sum(session)": 11, "count_unique(user)": 3, "crash_rate(user)": 2 / 3 } },
    ]);
    const staging = await sessions(
      `field=sum(session)&environment=staging&project=${acme.project.id}&groupBy=project&includeSeries=0`,
    );
    expect(staging.body.groups).toEqual([{ by: { project: Number(acme.project.id) }, totals: { "sum(session)": 1 } }]);
    const empty = await sessions("field=sum(session)&groupBy=release&statsPeriod=1h&interval=1h");
    expect(empty.body).toMatchObject({ intervals: ["2026-03-10T12:00:00Z"], groups: [] });
  });

  it("adds healthData to releases with health=1", async () => {
    const { status, body } = await call(
      "GET",
      "/api/0/organizations/acme/releases/web@1.0/?health=1",
      acme.allScopesToken,
    );
    expect(status).toBe(200);
    expect(body.projects).toEqual([
      expect.objectContaining({
        slug: "web",
        hasHealthData: true,
        healthData: {
          crashFreeSessions: 75,
          crashFreeUsers: 50,
          sessionsCrashed: 1,
          sessionsErrored: 1,
          totalSessions: 4,
          totalUsers: 2,
          totalSessions24h: 4,
          totalUsers24h: 2,
          totalProjectSessions24h: 11,
          totalProjectUsers24h: 3,
          adoption: 66.6667,
          sessionsAdoption: 36.3636,
          durationP50: null,
          durationP90: null,
          hasHealthData: true,
          stats: {},
        },
      }),
    ]);
    const list = await call("GET", "/api/0/organizations/acme/releases/?health=1", acme.allScopesToken);
    expect(
      list.body.map((r: { version: string; projects: Array<{ healthData: { totalSessions: number } }> }) => [
        r.version,
        r.projects[0]?.healthData.totalSessions,
      ]),
    ).toEqual([
      ["web@2.0", 7],
      ["web@1.0", 4],
    ]);
    const plain = await call("GET", "/api/0/organizations/acme/releases/web@1.0/", acme.allScopesToken);
    expect(plain.body.projects[0]).not.toHaveProperty("healthData");
  });

  it("counts items that do not parse as invalid session outcomes", async () => {
    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    const { body } = await call(
      "GET",
      "/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=category&groupBy=outcome&groupBy=reason&category=session",
      acme.allScopesToken,
    );
    expect(body.groups.map((g: { by: unknown; totals: unknown }) => [g.by, g.totals])).toEqual(
      expect.arrayContaining([
        [{ category: "session", outcome: "invalid", reason: "payload" }, { "sum(quantity)": 1 }],
        [{ category: "session", outcome: "invalid", reason: "timestamp" }, { "sum(quantity)": 1 }],
      ]),
    );
  });

  it.each([
    ["no field", "statsPeriod=24h", "field"],
    ["an unknown field", "field=sum(transaction)", "field"],
    ["a sub-hour interval", "field=sum(session)&interval=30m", "interval"],
    ["an interval not dividing a day", "field=sum(session)&interval=5h", "interval"],
    ["a malformed period", "field=sum(session)&statsPeriod=yesterday", "statsPeriod"],
    ["a period over 90 days", "field=sum(session)&statsPeriod=91d", "statsPeriod"],
    ["grouping by status", "field=sum(session)&groupBy=session.status", "groupBy"],
  ])("refuses %s with a 400 naming it", async (_what, query, named) => {
    const { status, body } = await sessions(query);
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain(named);
  });

  it("never shows another organization's projects or sessions", async () => {
    const foreign = await sessions(`field=sum(session)&project=${globex.project.id}`);
    expect(foreign).toMatchObject({ status: 400, body: { detail: expect.stringContaining("unknown project") } });
    expect(JSON.stringify(foreign.body)).not.toContain("globex");
    const theirs = await sessions("field=sum(session)", acme.allScopesToken, "globex");
    expect(theirs.status).toBe(404);
    // Their own numbers are theirs alone: one crashed session.
    const own = await sessions(
      "field=sum(session)&field=crash_free_rate(session)&includeSeries=0",
      globex.allScopesToken,
      "globex",
    );
    expect(own.body.groups).toEqual([{ by: {}, totals: { "sum(session)": 1, "crash_free_rate(session)": 0 } }]);
  });

  it("expires buckets with their project's retention (the last test: it moves the clock)", async () => {
    const rows = async () => {
      const db = instance.faultline.container.resolve(tokens.Db);
      const count = async (
        table: "release_health_buckets" | "release_health_unhealthy_sessions" | "release_health_users",
      ) => (await db.selectFrom(table).select("project_id").execute()).map((row) => row.project_id).sort();
      return {
        buckets: await count("release_health_buckets"),
        unhealthy: await count("release_health_unhealthy_sessions"),
        users: await count("release_health_users"),
      };
    };
    const acmeId = Number(acme.project.id);
    const globexId = Number(globex.project.id);
    expect(await rows()).toEqual({
      buckets: [acmeId, acmeId, acmeId, acmeId, globexId].sort(),
      unhealthy: [acmeId, acmeId, acmeId, globexId].sort(),
      users: [acmeId, acmeId, acmeId, acmeId, globexId].sort(),
    });
    await instance.faultline.api.retention.setProjectDays("acme", "web", 30);
    now = new Date(NOW.getTime() + 31 * 86_400_000);
    await instance.faultline.worker.runDue("release-health.retention");
    // Acme's own 30 days have passed; globex keeps the default 90.
    expect(await rows()).toEqual({ buckets: [globexId], unhealthy: [globexId], users: [globexId] });
  });

  it("writes what the buffer holds on close(), and what comes after as it comes", async () => {
    const { container } = instance.faultline;
    const db = container.resolve(tokens.Db);
    const buffer = new SessionBuffer(() => db, silentLogger, container.resolve(tokens.Options).schema);
    const started: SessionContribution = {
      key: { projectId: Number(acme.project.id), release: "close@1", environment: "", bucket: NOW.getTime() },
      sessions: 1,
      errored: 0,
      abnormal: 0,
      crashed: 0,
    };
    const written = async () =>
      (await db.selectFrom("release_health_buckets").select("sessions").where("release", "=", "close@1").execute()).map(
        (row) => Number(row.sessions),
      );
    await buffer.add([started]);
    expect(await written()).toEqual([]);
    await buffer.close();
    expect(await written()).toEqual([1]);
    await buffer.add([started]);
    expect(await written()).toEqual([2]);
  });
});
