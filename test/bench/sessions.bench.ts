import { afterAll, beforeAll, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi } from "../../src/index.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";
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
 * Release health's write path against error events, in one instance and run (docs/performance.md,
 * "Release health"): envelopes of one `session` update each (as browser SDKs send them: an
 * `init`, then the end, a tenth crashed or errored, over 5 releases × 2 environments and 2,000
 * users) over HTTP, until every count is committed (the buffer flushed); and as many error
 * events, until the queued digest stored them all. The median of three runs of each.
 */
const ITEMS = Number(process.env.BENCH_SESSIONS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_SESSIONS_CONCURRENCY ?? 64);
const schema = `bench_sessions_${Date.now()}`;
let faultline: Faultline<FaultlineApi>;
let server: RunningServer;
let url: string;

beforeAll(async () => {
  faultline = createFaultline({ database: BENCH_DATABASE_URL, schema, logger: quietLogger, worker: false });
  await faultline.api.organizations.create({ slug: "bench" });
  const project = await faultline.api.projects.create({ organization: "bench", slug: "app", platform: "javascript" });
  server = await serveFaultline(faultline);
  url = `${server.url}/api/${project.id}/envelope/?sentry_key=${project.keys[0]?.public}&sentry_version=7`;
});

afterAll(async () => {
  await server?.close();
  await faultline?.close();
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

const postTo = keepAlivePoster(CONCURRENCY);
const post = (body: string) => postTo(url, body);

async function postAll(bodies: string[]): Promise<void> {
  await runConcurrently(bodies.length, CONCURRENCY, async (i) => {
    const status = await post(bodies[i] as string);
    if (status !== 200) throw new Error(`ingest answered ${status}`);
  });
}

/** Update `i` of a run: even ones start session i/2, odd ones end it (every tenth crashed or errored). */
function sessionEnvelope(run: number, i: number): string {
  const n = Math.floor(i / 2);
  const status = i % 2 === 0 ? "ok" : n % 10 === 0 ? "crashed" : "exited";
  const update = {
    sid: `${run}-${n}`,
    did: `user-${n % 2000}`,
    init: i % 2 === 0,
    started: new Date().toISOString(),
    status,
    errors: n % 10 === 5 ? 1 : 0,
    attrs: { release: `app@1.${n % 5}.0`, environment: n % 3 === 0 ? "staging" : "production" },
  };
  return `{"sent_at":"${new Date().toISOString()}"}\n{"type":"session"}\n${JSON.stringify(update)}`;
}

async function sessionsPerSecond(run: number): Promise<number> {
  const bodies = Array.from({ length: ITEMS }, (_, i) => sessionEnvelope(run, i));
  const started = performance.now();
  await postAll(bodies);
  await faultline.api.releaseHealth.flush();
  return ITEMS / ((performance.now() - started) / 1000);
}

async function queueDepth(): Promise<number> {
  const client = await sqlClient();
  try {
    return Number((await client.query(`SELECT count(*) AS n FROM "${schema}".ingest_queue`)).rows[0].n);
  } finally {
    await client.end();
  }
}

/** Error events over HTTP until the queue is empty (every event stored, its issue counted). */
async function eventsPerSecond(run: number): Promise<number> {
  const bodies = Array.from({ length: ITEMS }, (_, i) => {
    const event = benchEvent(run * ITEMS + i, 50);
    return `${JSON.stringify({ event_id: event.event_id })}\n{"type":"event"}\n${JSON.stringify(event)}`;
  });
  faultline.worker.start();
  const started = performance.now();
  await postAll(bodies);
  while ((await queueDepth()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  const drained = performance.now();
  await faultline.worker.stop();
  return ITEMS / ((drained - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[1] as number;

it("session updates committed per second vs error events", async () => {
  const sessions: number[] = [];
  const events: number[] = [];
  for (const run of [1, 2, 3]) {
    sessions.push(await sessionsPerSecond(run));
    events.push(await eventsPerSecond(run));
  }
  const client = await sqlClient();
  const { rows } = await client.query(`SELECT sum(sessions)::integer AS n FROM "${schema}".release_health_buckets`);
  await client.end();
  expect(rows[0].n).toBe((3 * ITEMS) / 2);
  report(`Release health: ${ITEMS} session updates and ${ITEMS} error events per run, ${CONCURRENCY} clients`, [
    {
      "session updates/s (HTTP → committed), median of 3": Math.round(median(sessions)),
      runs: sessions.map(Math.round).join(" / "),
      "error events/s (HTTP → digested), median of 3": Math.round(median(events)),
      "runs ": events.map(Math.round).join(" / "),
      "sessions ÷ events": `${(median(sessions) / median(events)).toFixed(1)}×`,
    },
  ]);
});
