import { Agent, createServer, request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES } from "../../src/index.js";
import { EventSinkToken } from "../../src/plugins/issues/index.js";
import { listen, type RunningServer, serveFaultline } from "../helpers/server.js";
import { BENCH_DATABASE_URL, benchEvent, quietLogger, report, runConcurrently, sqlClient } from "./support.js";

/**
 * Ingest throughput end to end: envelopes over HTTP → event stored, issue updated, committed
 * (a 200 means committed). Baseline: a raw multi-row INSERT of the same event rows into a copy
 * of the events table (same indexes) in the same database, in the same run.
 */
const EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 64);
const schema = `bench_ingest_${Date.now()}`;
let faultline: Faultline<FaultlineApi>;
let server: RunningServer;
let dsn: { key: string; projectId: string };

function envelope(payload: Record<string, unknown>): string {
  return `${JSON.stringify({ event_id: payload.event_id, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(payload)}`;
}

beforeAll(async () => {
  faultline = createFaultline({ database: BENCH_DATABASE_URL, schema, logger: quietLogger, worker: false });
  await faultline.api.organizations.create({ slug: "bench" });
  const project = await faultline.api.projects.create({ organization: "bench", slug: "api", platform: "node" });
  dsn = { key: project.keys[0]?.public as string, projectId: project.id };
  void SCOPES;
  server = await serveFaultline(faultline);
});

afterAll(async () => {
  await server?.close();
  await faultline?.close();
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

/** A keep-alive node:http client (undici's fetch costs more CPU per request than the server under test). */
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function ingest(fingerprints: number): Promise<number> {
  const url = `${server.url}/api/${dsn.projectId}/envelope/?sentry_key=${dsn.key}&sentry_version=7`;
  const bodies = Array.from({ length: EVENTS }, (_, i) => envelope(benchEvent(i, fingerprints)));
  const started = performance.now();
  await runConcurrently(EVENTS, CONCURRENCY, async (i) => {
    const status = await post(url, bodies[i] as string);
    if (status !== 200) throw new Error(`ingest answered ${status}`);
  });
  return EVENTS / ((performance.now() - started) / 1000);
}

/** The storage path alone: the same events handed to the ingest sink in-process (no HTTP). */
async function ingestWithoutHttp(fingerprints: number): Promise<number> {
  const sink = faultline.container.resolve(EventSinkToken);
  const project = { id: Number(dsn.projectId), organizationId: 1, platform: "node" };
  const events = Array.from({ length: EVENTS }, (_, i) => benchEvent(i + EVENTS, fingerprints));
  const started = performance.now();
  await runConcurrently(EVENTS, CONCURRENCY, async (i) => void (await sink.capture(project, events[i])));
  return EVENTS / ((performance.now() - started) / 1000);
}

/** What the same HTTP client and node:http server manage with a handler that only reads the body. */
async function bareHttpRequestsPerSecond(): Promise<number> {
  const bare = await listen(createServer((req, res) => req.resume().on("end", () => res.end('{"id":"x"}'))));
  const body = envelope(benchEvent(0, 1));
  const started = performance.now();
  await runConcurrently(EVENTS, CONCURRENCY, async () => void (await post(`${bare.url}/api/1/envelope/`, body)));
  await bare.close();
  return EVENTS / ((performance.now() - started) / 1000);
}

async function rawInsertRowsPerSecond(): Promise<number> {
  const client = await sqlClient();
  try {
    await client.query(`CREATE TABLE "${schema}".raw_events (LIKE "${schema}".events INCLUDING ALL)`);
    const started = performance.now();
    const chunk = 500;
    for (let offset = 0; offset < EVENTS; offset += chunk) {
      const values: unknown[] = [];
      const tuples: string[] = [];
      for (let i = offset; i < Math.min(EVENTS, offset + chunk); i++) {
        const e = benchEvent(i, 50);
        const base = values.length;
        values.push(1, Number(dsn.projectId), 1, e.event_id, new Date(), new Date(), "error", "node", "production", "bench@1.0.0", "error", `BenchError: failure ${i % 50}`, `handler(server.js)`, `user:${e.user.id}`, JSON.stringify([["region", e.tags.region]]), [`${i % 50}`], 600, JSON.stringify(e));
        tuples.push(`(${Array.from({ length: 18 }, (_, k) => `$${base + k + 1}`).join(", ")})`);
      }
      await client.query(
        `INSERT INTO "${schema}".raw_events (organization_id, project_id, issue_id, event_id, timestamp, received, level, platform, environment, release, type, title, culprit, user_key, tags, hashes, size, payload) VALUES ${tuples.join(", ")}`,
        values,
      );
    }
    return EVENTS / ((performance.now() - started) / 1000);
  } finally {
    await client.end();
  }
}

it("ingest throughput vs raw multi-row INSERT", async () => {
  const ceiling = await rawInsertRowsPerSecond();
  const bareHttp = await bareHttpRequestsPerSecond();
  const rows: Array<Record<string, string | number>> = [];
  for (const fingerprints of [1, 50, 5000]) {
    const rate = await ingest(fingerprints);
    const storage = await ingestWithoutHttp(fingerprints);
    rows.push({
      "distinct fingerprints": fingerprints,
      "events/s (HTTP → committed)": Math.round(rate),
      "events/s (storage path, no HTTP)": Math.round(storage),
      "raw INSERT rows/s": Math.round(ceiling),
      "bare node:http req/s": Math.round(bareHttp),
      "HTTP / raw": `${Math.round((rate / ceiling) * 100)} %`,
      "storage / raw": `${Math.round((storage / ceiling) * 100)} %`,
      "HTTP / bare HTTP": `${Math.round((rate / bareHttp) * 100)} %`,
    });
  }
  report(`Ingest, ${EVENTS} events per run, ${CONCURRENCY} concurrent HTTP clients`, rows);
  expect(rows).toHaveLength(3);
});
