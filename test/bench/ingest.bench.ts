import { spawn } from "node:child_process";
import { createServer } from "node:http";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES } from "../../src/index.js";
import { EventSinkToken } from "../../src/plugins/event-store/index.js";
import { listen, type RunningServer, serveFaultline } from "../helpers/server.js";
import {
  BENCH_DATABASE_URL,
  benchEvent,
  keepAlivePoster,
  quietLogger,
  report,
  runConcurrently,
  sqlClient,
} from "./support.js";

/**
 * Ingest throughput end to end, both ingest modes side by side in one run. Direct: envelopes over
 * HTTP → event stored, issue updated, committed (a 200 means committed). Queued (#14): a 200 means
 * durably queued (the ack rate); the in-process worker digests meanwhile, and the drained rate
 * stops the clock when the queue is empty (every event stored and counted). The digest alone:
 * a queue filled with the worker stopped, then digested. Queued again with the digest in a
 * `faultline worker` process of its own (dist/cli.js), as a host that keeps it off its web tier
 * runs it. Baselines: a raw multi-row INSERT of the same event rows into a copy of the events table
 * (same indexes), a bare node:http server answering the same client, and the design's sketch — a
 * node:http server that parses the envelope and appends the event to a queue table with one
 * multi-row INSERT per 2 ms group commit, nothing else (the ceiling #14 measured the design at) —
 * in the same database and run.
 */
const EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 64);
const schema = `bench_ingest_${Date.now()}`;
const queuedSchema = `${schema}_queued`;
let faultline: Faultline<FaultlineApi>;
let server: RunningServer;
let dsn: { key: string; projectId: string };
let queued: Faultline<FaultlineApi>;
let queuedServer: RunningServer;
let queuedDsn: { key: string; projectId: string };

function envelope(payload: Record<string, unknown>): string {
  return `${JSON.stringify({ event_id: payload.event_id, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(payload)}`;
}

async function benchProject(instance: Faultline<FaultlineApi>): Promise<{ key: string; projectId: string }> {
  await instance.api.organizations.create({ slug: "bench" });
  const project = await instance.api.projects.create({ organization: "bench", slug: "api", platform: "node" });
  return { key: project.keys[0]?.public as string, projectId: project.id };
}

beforeAll(async () => {
  faultline = createFaultline({
    database: BENCH_DATABASE_URL,
    schema,
    logger: quietLogger,
    worker: false,
    ingest: { queued: false },
  });
  dsn = await benchProject(faultline);
  void SCOPES;
  server = await serveFaultline(faultline);
  // The worker is started and stopped per run: running for ack/drained, stopped to fill the queue for the digest alone.
  queued = createFaultline({
    database: BENCH_DATABASE_URL,
    schema: queuedSchema,
    logger: quietLogger,
    worker: false,
    ingest: { queued: true, maxQueueDepth: 10_000_000 },
  });
  queuedDsn = await benchProject(queued);
  queuedServer = await serveFaultline(queued);
});

afterAll(async () => {
  await server?.close();
  await faultline?.close();
  await queuedServer?.close();
  await queued?.close();
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS "${queuedSchema}" CASCADE`);
  await client.end();
});

const post = keepAlivePoster(CONCURRENCY);

async function ingest(fingerprints: number): Promise<number> {
  const started = performance.now();
  await postAll(server, dsn, fingerprints, 0);
  return EVENTS / ((performance.now() - started) / 1000);
}

async function postAll(
  target: RunningServer,
  project: { key: string; projectId: string },
  fingerprints: number,
  firstIndex: number,
): Promise<void> {
  const url = `${target.url}/api/${project.projectId}/envelope/?sentry_key=${project.key}&sentry_version=7`;
  const bodies = Array.from({ length: EVENTS }, (_, i) => envelope(benchEvent(firstIndex + i, fingerprints)));
  await runConcurrently(EVENTS, CONCURRENCY, async (i) => {
    const status = await post(url, bodies[i] as string);
    if (status !== 200) throw new Error(`ingest answered ${status}`);
  });
}

async function queueDepth(): Promise<number> {
  const client = await sqlClient();
  try {
    return Number((await client.query(`SELECT count(*) AS n FROM "${queuedSchema}".ingest_queue`)).rows[0].n);
  } finally {
    await client.end();
  }
}

/**
 * Queued mode: the ack rate (every 200 received, the in-process worker digesting meanwhile), the
 * drained rate (until the queue is empty: everything stored and counted), and the digest alone
 * (the same number of events queued with the worker stopped, then digested).
 */
async function ingestQueued(
  fingerprints: number,
  firstIndex: number,
): Promise<{ ack: number; drained: number; digest: number }> {
  queued.worker.start();
  const started = performance.now();
  await postAll(queuedServer, queuedDsn, fingerprints, firstIndex);
  const acked = performance.now();
  while ((await queueDepth()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  const drained = performance.now();
  await queued.worker.stop();
  await postAll(queuedServer, queuedDsn, fingerprints, firstIndex + EVENTS);
  const digestStarted = performance.now();
  await queued.worker.runDue("ingest.digest");
  const digested = performance.now();
  expect(await queueDepth()).toBe(0);
  return {
    ack: EVENTS / ((acked - started) / 1000),
    drained: EVENTS / ((drained - started) / 1000),
    digest: EVENTS / ((digested - digestStarted) / 1000),
  };
}

/**
 * Queued, with the digest in a `faultline worker` process (the built CLI) instead of this one:
 * the ack rate, and the drained rate once that process emptied the queue.
 */
async function ingestQueuedWithWorkerProcess(
  fingerprints: number,
  firstIndex: number,
): Promise<{ ack: number; drained: number }> {
  const cli = new URL("../../dist/cli.js", import.meta.url).pathname;
  const worker = spawn(
    process.execPath,
    [cli, "worker", "--database-url", BENCH_DATABASE_URL, "--schema", queuedSchema],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    worker.stdout.once("data", () => resolve());
    worker.once("exit", (code) => reject(new Error(`faultline worker exited (${code})`)));
  });
  try {
    const started = performance.now();
    await postAll(queuedServer, queuedDsn, fingerprints, firstIndex);
    const acked = performance.now();
    while ((await queueDepth()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const drained = performance.now();
    return { ack: EVENTS / ((acked - started) / 1000), drained: EVENTS / ((drained - started) / 1000) };
  } finally {
    worker.kill("SIGTERM");
    await new Promise((resolve) => worker.once("exit", resolve));
  }
}

/**
 * The design's sketch (#14): node:http, the envelope's event line parsed, appended to a queue
 * table by one multi-row INSERT per 2 ms group commit, then 200 — no validation, no key check,
 * no digest. What one event per request through this design costs at the least.
 */
async function sketchRequestsPerSecond(): Promise<number> {
  const pool = new pg.Pool({ connectionString: BENCH_DATABASE_URL, max: 4 });
  await pool.query(
    `CREATE TABLE IF NOT EXISTS "${schema}".sketch_queue (id bigserial PRIMARY KEY, project_id integer NOT NULL, event text NOT NULL)`,
  );
  let waiting: Array<{ event: string; done: () => void }> = [];
  let timer: NodeJS.Timeout | undefined;
  const commit = () => {
    timer = undefined;
    const batch = waiting;
    waiting = [];
    void pool
      .query(
        `INSERT INTO "${schema}".sketch_queue (project_id, event) SELECT * FROM unnest($1::integer[], $2::text[])`,
        [batch.map(() => 1), batch.map((item) => item.event)],
      )
      .then(() => batch.forEach((item) => item.done()));
  };
  const sketch = await listen(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on("data", (chunk: Buffer) => chunks.push(chunk))
        .on("end", () => {
          const [, , item = "{}"] = Buffer.concat(chunks).toString().split("\n");
          const event = JSON.parse(item) as { event_id: string };
          waiting.push({
            event: item,
            done: () => res.setHeader("content-type", "application/json").end(JSON.stringify({ id: event.event_id })),
          });
          timer ??= setTimeout(commit, 2);
        });
    }),
  );
  try {
    const started = performance.now();
    await postAll(sketch, { key: "k", projectId: "1" }, 50, 0);
    return EVENTS / ((performance.now() - started) / 1000);
  } finally {
    await sketch.close();
    await pool.end();
  }
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

async function medianOfThree(measure: () => Promise<number>): Promise<number> {
  const runs = [await measure(), await measure(), await measure()].sort((a, b) => a - b);
  return runs[1] as number;
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
        values.push(
          1,
          Number(dsn.projectId),
          1,
          e.event_id,
          new Date(),
          new Date(),
          "error",
          "node",
          "production",
          "bench@1.0.0",
          "error",
          `BenchError: failure ${i % 50}`,
          `handler(server.js)`,
          `user:${e.user.id}`,
          JSON.stringify([["region", e.tags.region]]),
          [`${i % 50}`],
          600,
          JSON.stringify(e),
        );
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
  // The baselines are the ratios' denominators: the median of three, a single run of either moved by a third between runs.
  const bareHttp = await medianOfThree(bareHttpRequestsPerSecond);
  const sketch = await medianOfThree(sketchRequestsPerSecond);
  const rows: Array<Record<string, string | number>> = [];
  const percent = (part: number, whole: number) => `${Math.round((part / whole) * 100)} %`;
  for (const [run, fingerprints] of [1, 50, 5000].entries()) {
    const rate = await ingest(fingerprints);
    const storage = await ingestWithoutHttp(fingerprints);
    const queuedRates = await ingestQueued(fingerprints, 10 * EVENTS * (run + 1));
    const workerProcess = await ingestQueuedWithWorkerProcess(fingerprints, 10 * EVENTS * (run + 1) + 2 * EVENTS);
    rows.push({
      "distinct fingerprints": fingerprints,
      "direct events/s (HTTP → committed)": Math.round(rate),
      "direct storage path, no HTTP": Math.round(storage),
      "queued ack events/s": Math.round(queuedRates.ack),
      "queued drained events/s": Math.round(queuedRates.drained),
      "digest alone events/s": Math.round(queuedRates.digest),
      "worker process: ack / drained events/s": `${Math.round(workerProcess.ack)} / ${Math.round(workerProcess.drained)}`,
      "raw INSERT rows/s": Math.round(ceiling),
      "bare node:http req/s": Math.round(bareHttp),
      "design sketch req/s": Math.round(sketch),
      "direct / bare HTTP": percent(rate, bareHttp),
      "queued ack / bare HTTP": percent(queuedRates.ack, bareHttp),
      "queued drained / bare HTTP": percent(queuedRates.drained, bareHttp),
      "worker process: ack / drained ÷ bare HTTP": `${percent(workerProcess.ack, bareHttp)} / ${percent(workerProcess.drained, bareHttp)}`,
      "design sketch / bare HTTP": percent(sketch, bareHttp),
      "digest alone / raw": percent(queuedRates.digest, ceiling),
      "direct storage / raw": percent(storage, ceiling),
    });
  }
  report(`Ingest, ${EVENTS} events per run, ${CONCURRENCY} concurrent HTTP clients`, rows);
  expect(rows).toHaveLength(3);
});
