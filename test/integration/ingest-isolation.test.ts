import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createServer } from "node:http";
import { Worker } from "node:worker_threads";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toNodeHandler } from "../../adapters/node/index.js";
import type { FaultlineOptions } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { DEFAULT_SCRUBBING_SETTINGS } from "../../src/plugins/data-scrubbing/settings.js";
import { IngestWorkerPool } from "../../src/plugins/ingest/isolation/pool.js";
import { prepareIngest, type PrepareJob } from "../../src/plugins/ingest/isolation/prepare.js";
import { CRASH_MARKER_ENV } from "../../src/plugins/ingest/isolation/protocol.js";
import { IngestWorkerPoolToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance } from "../../src/testing/index.js";
import { digestQueued, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer } from "../helpers/server.js";

/**
 * Threaded ingest (docs/ingest.md, "Isolation"): decompressing, parsing and normalising run in
 * worker threads, so a storm of CPU-heavy events leaves the host's own route on the same server
 * responsive; a crashed thread costs its in-flight requests a 503 (never a 200 for an event not
 * queued) and is started again; close() stops the threads.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newEventId = () => randomUUID().replaceAll("-", "");
const PING = "/host/ping";

/** A host: its own route and Faultline on one node:http server, as the adapters mount it. */
async function setup(ingest: NonNullable<FaultlineOptions["ingest"]>) {
  const instance = await createTestInstance({
    worker: false,
    logger: silentLogger,
    ingest: { queued: true, ...ingest },
  });
  cleanups.push(() => instance.close());
  const seed = await seedOrganization(instance.faultline);
  const handler = toNodeHandler(instance.faultline);
  const server = await listen(
    createServer((req, res) => (req.url === PING ? res.end('{"ok":true}') : void handler(req, res))),
  );
  cleanups.push(() => server.close());
  const key = seed.project.keys[0]?.public as string;
  return {
    faultline: instance.faultline,
    server,
    seed,
    ingestUrl: `${server.url}/api/${seed.project.id}/envelope/?sentry_key=${key}`,
  };
}

/**
 * An event that costs real CPU to accept: ~300 KB of JSON in thousands of small objects (a deep
 * stack trace with local variables, breadcrumbs), gzip-compressed as SDKs send it.
 */
function heavyEnvelope(eventId: string, marker = "", depth = 250): Uint8Array<ArrayBuffer> {
  const frames = Array.from({ length: depth }, (_, i) => ({
    filename: `src/module-${i % 40}.js`,
    function: `handler${i}`,
    lineno: i + 1,
    colno: 7,
    in_app: i % 3 === 0,
    vars: Object.fromEntries(Array.from({ length: 12 }, (_, j) => [`local${j}`, { value: j, text: `v-${i}-${j}` }])),
  }));
  const breadcrumbs = Array.from({ length: 100 }, (_, i) => ({
    category: "http",
    message: `GET /resource/${i} ${marker}`,
    data: { status: 200, attempt: i },
  }));
  const event = errorEvent({ event_id: eventId, breadcrumbs: { values: breadcrumbs } }, frames);
  const body = `${JSON.stringify({ event_id: eventId })}\n{"type":"event"}\n${JSON.stringify(event)}`;
  return gzipSync(body);
}

function send(url: string, body: Uint8Array<ArrayBuffer>, contentEncoding = "gzip"): Promise<Response> {
  return fetch(url, { method: "POST", body, headers: { "content-encoding": contentEncoding } });
}

/**
 * Closed-loop senders in a thread of their own (the load's own CPU stays off the loop being
 * measured), posting the same gzip envelope for `ms`; returns the statuses seen.
 */
function storm(url: string, body: Uint8Array, senders: number, ms: number): Promise<Record<string, number>> {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { url, body, senders, ms } = workerData;
    const statuses = {};
    const until = Date.now() + ms;
    const sender = async () => {
      while (Date.now() < until) {
        const response = await fetch(url, { method: "POST", body, headers: { "content-encoding": "gzip" } });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    };
    Promise.all(Array.from({ length: senders }, sender)).then(() => parentPort.postMessage(statuses));
  `;
  const worker = new Worker(code, { eval: true, workerData: { url, body, senders, ms } });
  return new Promise((resolve, reject) => {
    worker.once("message", (statuses: Record<string, number>) => void worker.terminate().then(() => resolve(statuses)));
    worker.once("error", reject);
  });
}

/** Calls the host's route every 20 ms until `done` settles; returns the latencies in ms. */
async function probe(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const started = performance.now();
    await (await fetch(url)).arrayBuffer();
    latencies.push(performance.now() - started);
    await sleep(20);
  }
  return latencies;
}

const p90 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.9)] ?? NaN;

/** The same storm and probe against a bare node:http server that answers the ingest path 429 at once. */
async function bareBaseline(body: Uint8Array): Promise<number[]> {
  const bare: RunningServer = await listen(
    createServer((req, res) =>
      req.url === PING ? res.end('{"ok":true}') : void req.resume().on("end", () => res.writeHead(429).end()),
    ),
  );
  try {
    const load = storm(`${bare.url}/api/1/envelope/`, body, 4, 3_000);
    return await probe(`${bare.url}${PING}`, load);
  } finally {
    await bare.close();
  }
}

describe("ingest isolated in worker threads", { timeout: 120_000 }, () => {
  it("hands every request's parse and normalisation in a storm of CPU-heavy events to a worker thread, none inline", async () => {
    const body = heavyEnvelope(newEventId());
    const baseline = p90(await bareBaseline(body));
    const latencyDuringStorm = async (isolation: "threads" | "inline") => {
      const context = await setup({ isolation });
      // Warm: a thread starts on the first event (loading its code takes ~1 s on a busy machine).
      expect((await send(context.ingestUrl, body)).status).toBe(200);
      const jobs = vi.spyOn(context.faultline.container.resolve(IngestWorkerPoolToken), "run");
      const load = storm(context.ingestUrl, body, 4, 3_000);
      const latencies = await probe(`${context.server.url}${PING}`, load);
      const statuses = await load;
      const requests = Object.values(statuses).reduce((sum, n) => sum + n, 0);
      return { p90: p90(latencies), statuses, requests, jobs: jobs.mock.calls.length };
    };
    const inline = await latencyDuringStorm("inline");
    const threads = await latencyDuringStorm("threads");
    const summary = { bareP90: baseline, inline, threads };
    // The storm was accepted, not refused, in both modes (the event ids repeat: one is stored).
    expect(threads.statuses["200"] ?? 0, JSON.stringify(summary)).toBeGreaterThan(10);
    expect(inline.statuses["200"] ?? 0, JSON.stringify(summary)).toBeGreaterThan(10);
    // What isolation changes: with threads every request's decompression, parse and normalisation
    // was a worker thread's job, none with inline. Latencies are reported here, not asserted (on a
    // shared two-core machine the worker thread and the other test files compete for the same
    // cores): the storm benchmark compares them with a bare server (docs/performance.md).
    // (A request refused before parsing, had the machine been slow enough to shed, makes no job.)
    expect(threads.jobs, JSON.stringify(summary)).toBeGreaterThanOrEqual(threads.statuses["200"] ?? Infinity);
    expect(threads.jobs, JSON.stringify(summary)).toBeLessThanOrEqual(threads.requests);
    expect(inline.jobs, JSON.stringify(summary)).toBe(0);
  });

  it("answers 503 for the requests of a crashed thread, acknowledges only queued events, and restarts the thread", async () => {
    const marker = `crash-${randomUUID()}`;
    process.env[CRASH_MARKER_ENV] = marker;
    cleanups.push(async () => void delete process.env[CRASH_MARKER_ENV]);
    const context = await setup({ isolation: "threads", threads: 1 });
    // The crashing body goes uncompressed: the thread looks for the marker in the bytes as sent.
    const sendEvent = (eventId: string, crash = false) =>
      crash
        ? send(context.ingestUrl, gunzipSync(heavyEnvelope(eventId, marker, 20)), "identity")
        : send(context.ingestUrl, heavyEnvelope(eventId, "", 20));
    const crashId = newEventId();
    const ids = Array.from({ length: 8 }, newEventId);
    const responses = await Promise.all([
      ...ids.slice(0, 4).map((id) => sendEvent(id)),
      sendEvent(crashId, true),
      ...ids.slice(4).map((id) => sendEvent(id)),
    ]);
    const statusOf = new Map([...ids.slice(0, 4), crashId, ...ids.slice(4)].map((id, i) => [id, responses[i]]));
    const crashed = statusOf.get(crashId) as Response;
    expect(crashed.status).toBe(503);
    expect(crashed.headers.get("retry-after")).toBe("1");
    expect(((await crashed.json()) as { detail: string }).detail).toMatch(/worker/);
    for (const response of responses) expect([200, 503]).toContain(response.status);

    // A fresh thread takes the next request.
    const afterId = newEventId();
    expect((await sendEvent(afterId)).status).toBe(200);
    await digestQueued(context.faultline);
    const stored = async (id: string) =>
      (
        await fetch(`${context.server.url}/api/0/projects/acme/web/events/${id}/`, {
          headers: bearer(context.seed.allScopesToken),
        })
      ).status;
    // Every 200 was a committed row; a 503 queued nothing.
    for (const [id, response] of statusOf) expect(await stored(id)).toBe(response?.status === 200 ? 200 : 404);
    expect(await stored(afterId)).toBe(200);
  });

  it("starts no thread before the first event and stops its threads on close()", async () => {
    const context = await setup({ isolation: "threads", threads: 2 });
    const pool = context.faultline.container.resolve(IngestWorkerPoolToken);
    expect(pool.running).toBe(0);
    const sent = await Promise.all(
      Array.from({ length: 4 }, () => send(context.ingestUrl, heavyEnvelope(newEventId(), "", 20))),
    );
    expect(sent.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(pool.running).toBeGreaterThan(0);
    await context.faultline.close();
    expect(pool.running).toBe(0);
  });

  it("runs jobs inline, with one warning, when the worker's file is there but never finishes loading", async () => {
    const dir = await mkdtemp(join(tmpdir(), "faultline-worker-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const hanging = join(dir, "ingest-worker.mjs");
    await writeFile(hanging, "await new Promise(() => setInterval(() => {}, 1000));\n");
    const warnings: string[] = [];
    const logger = { warn: (_fields: object | string, message?: string) => void warnings.push(String(message)) };
    const pool = new IngestWorkerPool(1, logger, prepareIngest, pathToFileURL(hanging), 300);
    cleanups.push(() => pool.close());
    const eventId = newEventId();
    const started = performance.now();
    const result = await pool.run({
      kind: "envelope",
      itemTypes: [],
      body: heavyEnvelope(eventId, "", 5),
      contentEncoding: "gzip",
      receivedAtMs: Date.now(),
      clientAddress: null,
      settings: { filters: null, scrubbing: DEFAULT_SCRUBBING_SETTINGS },
    });
    // Answered once the 300 ms allowance ran out, by the host's thread, and the thread is gone.
    expect(result.ok && result.events.map((event) => event.eventId)).toEqual([eventId]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(pool.inlineOnly).toBe(true);
    expect(pool.running).toBe(0);
    expect(warnings).toEqual([expect.stringMatching(/could not start; ingest runs on the host's thread/)]);
  });

  it("runs jobs inline, with one warning, when the worker's file is there but cannot load (as after a bundler rewrote it)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "faultline-worker-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // What Next.js 14's webpack made of the worker: a file that fails as it loads.
    const broken = join(dir, "ingest-worker.js");
    await writeFile(broken, 'import "faultline-module-that-is-not-installed";\n');
    const warnings: string[] = [];
    const pool = new IngestWorkerPool(
      2,
      { warn: (_fields, message) => void warnings.push(String(message)) },
      prepareIngest,
      pathToFileURL(broken),
    );
    cleanups.push(() => pool.close());
    const job = (eventId: string): PrepareJob => ({
      kind: "envelope",
      itemTypes: [],
      body: heavyEnvelope(eventId, "", 5),
      contentEncoding: "gzip",
      receivedAtMs: Date.now(),
      clientAddress: null,
      settings: { filters: null, scrubbing: DEFAULT_SCRUBBING_SETTINGS },
    });
    const ids = Array.from({ length: 3 }, newEventId);
    // The first jobs wait on a thread that never becomes ready; they, and every later one, run inline.
    const results = await Promise.all(ids.map((id) => pool.run(job(id))));
    const later = await pool.run(job(newEventId()));
    for (const [i, result] of results.entries()) {
      expect(result.ok).toBe(true);
      expect(result.ok && result.events.map((event) => event.eventId)).toEqual([ids[i]]);
    }
    expect(later.ok).toBe(true);
    expect(pool.inlineOnly).toBe(true);
    expect(pool.running).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not start; ingest runs on the host's thread/);
  });
});
