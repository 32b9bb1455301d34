import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES } from "../../src/index.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";
import { BENCH_DATABASE_URL, quietLogger, report, runConcurrently, sqlClient } from "./support.js";

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

function eventPayload(i: number, fingerprints: number) {
  const group = i % fingerprints;
  return {
    event_id: randomUUID().replaceAll("-", ""),
    timestamp: Date.now() / 1000,
    platform: "node",
    level: "error",
    environment: "production",
    release: "bench@1.0.0",
    tags: { region: `r${i % 4}` },
    user: { id: `user-${i % 500}` },
    exception: {
      values: [
        {
          type: "BenchError",
          value: `failure ${group}`,
          stacktrace: { frames: [{ filename: "/app/server.js", function: `handler${group}`, lineno: 10, colno: 3, in_app: true }] },
        },
      ],
    },
  };
}

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

async function ingest(fingerprints: number): Promise<number> {
  const url = `${server.url}/api/${dsn.projectId}/envelope/?sentry_key=${dsn.key}&sentry_version=7`;
  const bodies = Array.from({ length: EVENTS }, (_, i) => envelope(eventPayload(i, fingerprints)));
  const started = performance.now();
  await runConcurrently(EVENTS, CONCURRENCY, async (i) => {
    const response = await fetch(url, { method: "POST", body: bodies[i] });
    if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  });
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
        const e = eventPayload(i, 50);
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
  const rows: Array<Record<string, string | number>> = [];
  for (const fingerprints of [1, 50, 5000]) {
    const rate = await ingest(fingerprints);
    rows.push({ "distinct fingerprints": fingerprints, "events/s (HTTP → committed)": Math.round(rate), "raw INSERT rows/s": Math.round(ceiling), ratio: `${Math.round((rate / ceiling) * 100)} %` });
  }
  report(`Ingest, ${EVENTS} events per run, ${CONCURRENCY} concurrent HTTP clients`, rows);
  expect(rows).toHaveLength(3);
});
