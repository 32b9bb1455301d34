import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import pg from "pg";
import { Registry } from "prom-client";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sendWebResponse } from "../../adapters/node/index.js";
import { randomHex } from "../../src/crypto/secrets.js";
import { quoteIdentifier } from "../../src/db/identifiers.js";
import {
  createFaultline,
  definePlugin,
  type Faultline,
  type FaultlineApi,
  type FaultlineOptions,
  type HealthReport,
} from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, pickBackend, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import {
  asyncLocalContextManager,
  parseExposition,
  recordingPinoLogger,
  recordingTracerProvider,
  valueOf,
} from "../helpers/observability.js";
import { startReceiver } from "../helpers/receiver.js";
import { listen, type RunningServer, serveFaultline } from "../helpers/server.js";
import { startTcpProxy } from "../helpers/tcp-proxy.js";
import { sleep, waitFor } from "../helpers/wait.js";

/**
 * Operations (#17): the metrics handler scraped over HTTP after real ingest and deliveries, the
 * readiness handler going 503 when the database, migrations, the worker or the queue say so,
 * spans through the @opentelemetry/api global provider, request ids on log lines, and silence
 * when idle.
 */
const { backend, url: serverUrl } = await pickBackend();
const onPostgres = backend !== "pglite" && serverUrl !== undefined;

// Registered before any instance exists, as a host's SDK would be at startup.
const tracing = recordingTracerProvider();
trace.setGlobalTracerProvider(tracing);
context.setGlobalContextManager(asyncLocalContextManager());
afterAll(() => {
  trace.disable();
  context.disable();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A clock the test moves: queue lag is measured against it. */
function movableClock() {
  let offsetMs = 0;
  return { now: () => new Date(Date.now() + offsetMs), advance: (ms: number) => void (offsetMs += ms) };
}

async function instance(options: Omit<FaultlineOptions, "database" | "schema"> = {}): Promise<TestInstance> {
  const created = await createTestInstance({
    worker: false,
    logger: silentLogger,
    delivery: { allowPrivateNetworks: true },
    ...options,
  });
  cleanups.push(() => created.close());
  return created;
}

async function serve(faultline: Faultline<FaultlineApi>): Promise<RunningServer> {
  const server = await serveFaultline(faultline);
  cleanups.push(() => server.close());
  return server;
}

/** A host's own server exposing only what it chose: `/metrics`, `/livez`, `/readyz`. */
async function serveOperations(faultline: Faultline<FaultlineApi>): Promise<RunningServer> {
  const routes: Record<string, () => Promise<Response>> = {
    "/metrics": () => faultline.metrics.handler(),
    "/livez": () => faultline.health.live(),
    "/readyz": () => faultline.health.ready(),
  };
  const server = await listen(
    createServer((req, res) => {
      const route = routes[req.url ?? ""];
      if (!route) return void res.writeHead(404).end();
      void route().then((response) => sendWebResponse(res, response));
    }),
  );
  cleanups.push(() => server.close());
  return server;
}

async function scrape(server: RunningServer) {
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return parseExposition(await response.text());
}

async function readiness(server: RunningServer): Promise<{ status: number; body: HealthReport }> {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, body: (await response.json()) as HealthReport };
}

async function seedProject(faultline: Faultline<FaultlineApi>) {
  await faultline.api.organizations.create({ slug: "acme" });
  const project = await faultline.api.projects.create({ organization: "acme", slug: "web", platform: "node" });
  return { id: project.id, key: project.keys[0]?.public as string };
}

/** What @sentry/node 11 posts for one event. */
function sendEvent(
  server: RunningServer,
  project: { id: string; key: string },
  event: Record<string, unknown>,
  key = project.key,
) {
  const eventId = randomUUID().replaceAll("-", "");
  const body = [
    JSON.stringify({ event_id: eventId }),
    '{"type":"event"}',
    JSON.stringify({ ...event, event_id: eventId }),
  ].join("\n");
  return fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${key}`, { method: "POST", body });
}

const ENVELOPE_ROUTE = "/api/{project_id}/envelope/";
/** A route that needs a token: without one, 401. */
const AUTHENTICATED_PATH = "/api/0/organizations/acme/issues/";

describe("metrics", () => {
  it("counts ingest, the queue, issues and deliveries, with request latency per route template, scraped over HTTP", async () => {
    const clock = movableClock();
    const { faultline } = await instance({ clock });
    const project = await seedProject(faultline);
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    await faultline.api.apps.create({
      organization: "acme",
      name: "Tracker",
      slug: "tracker",
      isInternal: true,
      webhookUrl: `${receiver.url}/hook`,
      events: ["error"],
    });
    const server = await serve(faultline);
    const operations = await serveOperations(faultline);
    const before = await scrape(operations);
    // Every drop reason is there from the start (rate() works before the first refusal).
    expect(
      before
        .filter((sample) => sample.name === "faultline_ingest_events_dropped_total")
        .map((sample) => sample.labels.reason),
    ).toEqual(
      expect.arrayContaining(["rate_limited", "queue_full", "overloaded", "too_large", "invalid", "client_discard"]),
    );

    expect((await sendEvent(server, project, errorEvent({ fingerprint: ["a"] }))).status).toBe(200);
    expect((await sendEvent(server, project, errorEvent({ fingerprint: ["b"] }))).status).toBe(200);
    expect((await sendEvent(server, project, errorEvent({ fingerprint: ["a"] }))).status).toBe(200);
    expect((await sendEvent(server, project, errorEvent(), "0".repeat(32))).status).toBe(401);
    // An event item that is not an object: the envelope is refused, its one event counted as invalid.
    const badItem = [JSON.stringify({ event_id: "a".repeat(32) }), '{"type":"event"}', "[1]"].join("\n");
    expect(
      (
        await fetch(`${server.url}/api/${project.id}/envelope/?sentry_key=${project.key}`, {
          method: "POST",
          body: badItem,
        })
      ).status,
    ).toBe(400);
    expect((await fetch(`${server.url}/api/0/nothing-here/`)).status).toBe(404);

    // Queued, not digested yet: the depth and the lag (three minutes by the instance's clock).
    clock.advance(180_000);
    const queued = await scrape(operations);
    expect(valueOf(queued, "faultline_ingest_queue_depth")).toBe(3);
    expect(valueOf(queued, "faultline_ingest_digest_lag_seconds")).toBeGreaterThanOrEqual(180);
    expect(
      valueOf(queued, "faultline_ingest_events_accepted_total") -
        valueOf(before, "faultline_ingest_events_accepted_total"),
    ).toBe(3);
    expect(valueOf(queued, "faultline_ingest_events_dropped_total", { reason: "invalid" })).toBe(1);
    const latency = { method: "POST", route: ENVELOPE_ROUTE, status: "200" };
    expect(valueOf(queued, "faultline_http_request_duration_seconds_count", latency)).toBe(3);
    expect(valueOf(queued, "faultline_http_request_duration_seconds_bucket", { ...latency, le: "+Inf" })).toBe(3);
    expect(
      valueOf(queued, "faultline_http_request_duration_seconds_count", {
        method: "GET",
        route: "unmatched",
        status: "404",
      }),
    ).toBe(1);
    // Route templates only: no label carries a raw path.
    expect(queued.filter((sample) => sample.labels.route?.includes(String(project.id)))).toEqual([]);

    await faultline.worker.runDue("ingest.digest");
    await faultline.worker.runDue("delivery.send");
    await receiver.until((requests) => requests.length === 3);
    await waitFor(
      async () =>
        valueOf(await scrape(operations), "faultline_deliveries_total", {
          destination: "app",
          outcome: "delivered",
        }) === 3,
      10_000,
      "three deliveries counted",
    );

    const after = await scrape(operations);
    expect(valueOf(after, "faultline_ingest_queue_depth")).toBe(0);
    expect(valueOf(after, "faultline_ingest_digest_lag_seconds")).toBe(0);
    expect(valueOf(after, "faultline_ingest_events_digested_total")).toBe(3);
    expect(valueOf(after, "faultline_issues_created_total")).toBe(2);
    expect(valueOf(after, "faultline_delivery_duration_seconds_count", { destination: "app" })).toBe(3);
    expect(valueOf(after, "faultline_deliveries_total", { destination: "app", outcome: "failed" })).toBe(0);
  }, 90_000);

  it("counts refused deliveries by outcome and back-pressure as queue_full", async () => {
    const { faultline } = await instance({
      ingest: { maxQueueDepth: 1 },
      delivery: { allowPrivateNetworks: true, retryDelays: [0] },
    });
    const project = await seedProject(faultline);
    const receiver = await startReceiver([], { fallback: 500 });
    cleanups.push(receiver.close);
    await faultline.api.apps.create({
      organization: "acme",
      name: "Tracker",
      slug: "tracker",
      isInternal: true,
      webhookUrl: `${receiver.url}/hook`,
      events: ["error"],
    });
    const server = await serve(faultline);
    expect((await sendEvent(server, project, errorEvent())).status).toBe(200);
    expect((await sendEvent(server, project, errorEvent())).status).toBe(429);
    await faultline.worker.runDue("ingest.digest");
    await faultline.worker.runDue("delivery.send");
    const samples = parseExposition(await (await faultline.metrics.handler()).text());
    expect(valueOf(samples, "faultline_ingest_events_dropped_total", { reason: "queue_full" })).toBe(1);
    // One retry scheduled (retryDelays: [0]), then the second attempt fails for good.
    const failed = async () => {
      await faultline.worker.runDue("delivery.send");
      return (
        valueOf(parseExposition(await faultline.metrics.registry.metrics()), "faultline_deliveries_total", {
          destination: "app",
          outcome: "failed",
        }) === 1
      );
    };
    await waitFor(failed, 10_000, "a failed delivery");
    const settled = parseExposition(await faultline.metrics.registry.metrics());
    expect(valueOf(settled, "faultline_deliveries_total", { destination: "app", outcome: "retrying" })).toBe(1);
  });

  it("each instance has a registry of its own; a host's registry takes them under distinct prefixes", async () => {
    const first = createFaultline({ logger: silentLogger });
    const second = createFaultline({ logger: silentLogger });
    expect(first.metrics.registry).not.toBe(second.metrics.registry);
    const registry = new Registry();
    const web = createFaultline({ logger: silentLogger, metrics: { registry } });
    const admin = createFaultline({ logger: silentLogger, metrics: { registry, prefix: "faultline_admin_" } });
    expect(web.metrics.registry).toBe(registry);
    expect(registry.getSingleMetric("faultline_ingest_events_accepted_total")).toBeDefined();
    expect(registry.getSingleMetric("faultline_admin_ingest_events_accepted_total")).toBeDefined();
    // Neither opened a database: the queue gauges are left out until the instance is initialised.
    expect(await registry.metrics()).toContain("faultline_http_request_duration_seconds");
    await Promise.all([first, second, web, admin].map((faultline) => faultline.close()));
    expect(() => createFaultline({ metrics: { registry: {} as Registry } })).toThrow(/metrics.registry/);
  });
});

describe("health", () => {
  it("liveness answers 200 without the database; readiness lists each check and fails on a late queue", async () => {
    const clock = movableClock();
    const { faultline } = await instance({ clock, health: { maxQueueLagMs: 60_000 } });
    const project = await seedProject(faultline);
    const server = await serve(faultline);
    const operations = await serveOperations(faultline);
    expect(await (await fetch(`${operations.url}/livez`)).json()).toEqual({ status: "ok" });

    const ready = await readiness(operations);
    expect(ready).toEqual({
      status: 200,
      body: {
        status: "ok",
        checks: {
          database: { status: "ok" },
          startup: { status: "ok" },
          migrations: { status: "ok" },
          worker: { status: "skipped", detail: "this instance runs no worker" },
          "ingest.queue": { status: "ok", depth: 0, lagSeconds: 0, failed: 0 },
        },
      },
    });

    expect((await sendEvent(server, project, errorEvent())).status).toBe(200);
    clock.advance(120_000);
    const late = await readiness(operations);
    expect(late.status).toBe(503);
    expect(late.body.checks["ingest.queue"]).toMatchObject({ status: "fail", depth: 1 });
    expect(late.body.checks["ingest.queue"]?.lagSeconds).toBeGreaterThanOrEqual(120);

    await faultline.worker.runDue("ingest.digest");
    expect((await readiness(operations)).status).toBe(200);
  });

  it("is not ready while migrations are pending, and is once they are applied", async () => {
    const { database, schema } = await instance();
    const audit = definePlugin({
      id: "acme-audit",
      migrations: [{ name: "0001_audit", statements: (s) => [`CREATE TABLE ${s}.acme_audit (id integer)`] }],
    });
    const faultline = createFaultline({
      database,
      schema,
      autoMigrate: false,
      worker: false,
      logger: silentLogger,
      plugins: [audit],
    });
    cleanups.push(() => faultline.close());
    const pending = await faultline.health.check();
    expect(pending.status).toBe("fail");
    expect(pending.checks.migrations).toEqual({
      status: "fail",
      detail: "migrations are pending: run `faultline migrate`",
      pending: ["acme-audit:0001_audit"],
    });
    await faultline.migrate();
    expect(await faultline.health.check()).toMatchObject({ status: "ok", checks: { migrations: { status: "ok" } } });
  });

  it("fails the worker check when a task's run is overdue, and passes again once it ran", async () => {
    let release: () => void = () => {};
    let hanging = false;
    const hang = definePlugin({
      id: "test-hang",
      tasks: [
        {
          id: "test.hang",
          intervalMs: 50,
          run: () =>
            hanging ? new Promise<boolean>((resolve) => (release = () => resolve(false))) : Promise.resolve(false),
        },
      ],
    });
    const { faultline } = await instance({ worker: true, plugins: [hang], health: { workerStallMs: 1_000 } });
    expect((await faultline.health.check()).checks.worker).toEqual({ status: "ok" });
    hanging = true;
    const stalled = await waitFor(
      async () => {
        const report = await faultline.health.check();
        return report.checks.worker?.status === "fail" && report;
      },
      20_000,
      "the worker check failing",
    );
    expect(stalled.checks.worker).toMatchObject({ overdue: ["test.hang"] });
    hanging = false;
    release();
    await waitFor(
      async () => (await faultline.health.check()).checks.worker?.status === "ok",
      10_000,
      "the worker check passing again",
    );
  });

  it.runIf(onPostgres)(
    "readiness is 503 while the database is unreachable (liveness stays 200), and 200 once it is back",
    async () => {
      const target = new URL(serverUrl as string);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      cleanups.push(proxy.close);
      const schema = `faultline_test_${randomHex(6)}`;
      const faultline = createFaultline({
        database: proxy.url(serverUrl as string),
        schema,
        worker: false,
        logger: silentLogger,
        connection: { timeoutMs: 1_000 },
        health: { timeoutMs: 1_500 },
      });
      cleanups.push(async () => {
        await faultline.close();
        const admin = new pg.Client({ connectionString: serverUrl });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
        await admin.end();
      });
      // Readiness would start it too, but the first migrations take longer than a probe's timeout.
      await faultline.ready();
      const operations = await serveOperations(faultline);
      expect((await readiness(operations)).status).toBe(200);

      proxy.cut();
      const down = await readiness(operations);
      expect(down.status).toBe(503);
      expect(down.body.checks.database?.status).toBe("fail");
      expect(down.body.checks.migrations).toEqual({ status: "skipped", detail: "the database is unreachable" });
      expect((await fetch(`${operations.url}/livez`)).status).toBe(200);

      proxy.blackhole(); // a route that drops packets: the check gives up after health.timeoutMs
      const silent = await readiness(operations);
      expect(silent.status).toBe(503);
      expect(silent.body.checks.database?.detail).toMatch(/did not answer within 1500 ms|timeout/);

      proxy.restore();
      await waitFor(async () => (await readiness(operations)).status === 200, 15_000, "ready again");
    },
  );

  it("a closed instance is not ready", async () => {
    const faultline = createFaultline({ logger: silentLogger });
    await faultline.close();
    const response = await faultline.health.ready();
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: "fail",
      checks: { instance: { status: "fail", detail: "this Faultline instance is closed" } },
    });
  });
});

describe("tracing", () => {
  it("one server span per request named by route template, as a child of the host's span; spans for the digest batch and delivery sends", async () => {
    const { faultline } = await instance();
    const project = await seedProject(faultline);
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    await faultline.api.apps.create({
      organization: "acme",
      name: "Tracker",
      slug: "tracker",
      isInternal: true,
      webhookUrl: `${receiver.url}/hook`,
      events: ["error"],
    });
    const server = await serve(faultline);
    tracing.spans.length = 0;

    expect((await sendEvent(server, project, errorEvent())).status).toBe(200);
    const ingestSpan = tracing.spans.find((span) => span.name === `POST ${ENVELOPE_ROUTE}`);
    expect(ingestSpan).toMatchObject({
      kind: SpanKind.SERVER,
      ended: true,
      attributes: {
        "http.request.method": "POST",
        "http.route": ENVELOPE_ROUTE,
        "http.response.status_code": 200,
        "url.path": `/api/${project.id}/envelope/`,
      },
    });

    const host = trace.getTracer("host").startSpan("host request");
    const response = await context.with(trace.setSpan(context.active(), host), () =>
      faultline.handler(new Request("http://x/api/0/unknown/")),
    );
    host.end();
    expect(response.status).toBe(404);
    const unmatched = tracing.spans.at(-1);
    expect(unmatched).toMatchObject({
      name: "GET",
      kind: SpanKind.SERVER,
      parentSpanId: host.spanContext().spanId,
      attributes: { "http.response.status_code": 404 },
    });
    expect(unmatched?.attributes["http.route"]).toBeUndefined();

    await faultline.worker.runDue("ingest.digest");
    expect(tracing.spans.filter((span) => span.name === "ingest.digest")).toEqual([
      expect.objectContaining({ ended: true, attributes: { "faultline.ingest.events": 1 } }),
    ]);
    await faultline.worker.runDue("delivery.send");
    await receiver.until((requests) => requests.length === 1);
    await waitFor(
      async () => tracing.spans.find((span) => span.name === "delivery.send" && span.ended),
      10_000,
      "a delivery span",
    );
    expect(tracing.spans.find((span) => span.name === "delivery.send")).toMatchObject({
      kind: SpanKind.CLIENT,
      attributes: {
        "http.request.method": "POST",
        "server.address": "127.0.0.1",
        "http.response.status_code": 200,
        "faultline.delivery.destination_type": "app",
      },
      status: { code: SpanStatusCode.UNSET },
    });
  });
});

describe("logs", () => {
  it("every line logged while handling a request carries its request id, through the host's logger's child()", async () => {
    const { logger, lines } = recordingPinoLogger();
    const { faultline } = await instance({ logger });
    const server = await serve(faultline);
    lines.length = 0;
    const response = await fetch(`${server.url}${AUTHENTICATED_PATH}`, { headers: { "X-Request-Id": "req-abc.123" } });
    expect(response.headers.get("x-request-id")).toBe("req-abc.123");
    expect(lines).toEqual([
      {
        level: "debug",
        bindings: { requestId: "req-abc.123" },
        fields: expect.objectContaining({ method: "GET", path: AUTHENTICATED_PATH, status: 401 }),
        msg: "faultline request",
      },
    ]);
  });

  it("a logger without child() gets the request id among each line's fields", async () => {
    const { logger, lines } = recordingPinoLogger();
    const { child: _child, ...withoutChild } = logger;
    const { faultline } = await instance({ logger: withoutChild });
    const response = await faultline.handler(new Request(`http://x${AUTHENTICATED_PATH}`));
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.at(-1)).toMatchObject({ bindings: {}, fields: { requestId, status: 401 }, msg: "faultline request" });
  });

  it("an idle instance running its worker logs nothing; a task failing every run logs its streak once", async () => {
    const { logger, lines } = recordingPinoLogger();
    let runs = 0;
    const failing = definePlugin({
      id: "test-failing",
      tasks: [
        {
          id: "test.failing",
          intervalMs: 20,
          run: async () => (runs++, Promise.reject(new TypeError("x is undefined"))),
        },
      ],
    });
    const { faultline } = await instance({ worker: true, logger });
    const idleWorker = faultline.worker;
    expect(idleWorker.started).toBe(true);
    lines.length = 0;
    await sleep(3_000);
    // Debug included: the digest polls every 250 ms and deliveries every second, silently.
    expect(lines).toEqual([]);

    await instance({ worker: true, logger, plugins: [failing] });
    await waitFor(async () => runs >= 5, 10_000, "five failed runs");
    const about = lines.filter((line) => line.fields.task === "test.failing");
    expect(about).toEqual([
      expect.objectContaining({
        level: "error",
        msg: "faultline: background task failed",
        fields: expect.objectContaining({ consecutiveFailures: 1 }),
      }),
    ]);
  });
});
