import { afterAll, beforeAll, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES } from "../../src/index.js";
import { EventSinkToken } from "../../src/plugins/event-store/index.js";
import { BENCH_DATABASE_URL, benchEvent, quietLogger, report, runConcurrently, sqlClient } from "./support.js";

/**
 * What issue alert rules cost at ingest (issue 7: less than 20 %). The storage path (events handed
 * to the ingest sink in-process, committed) into two identical projects, one without rules and one
 * with 10 active rules of every kind plus an `event.alert` hook and an `event_alert` app; and, as
 * the baseline before alerting existed, the project without rules with the per-minute counter
 * trigger switched off. Runs alternate so drift in the machine hits every side alike; the best run
 * of each side counts.
 */
const EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 64);
const ROUNDS = Number(process.env.BENCH_RULES_ROUNDS ?? 3);
const FINGERPRINTS = 50;
const schema = `bench_rules_${Date.now()}`;
let faultline: Faultline<FaultlineApi>;
const projects: Record<"plain" | "rules", { id: number; organizationId: number }> = {
  plain: { id: 0, organizationId: 0 },
  rules: { id: 0, organizationId: 0 },
};

const RULES: Array<Record<string, unknown>> = [
  { name: "new issue", conditions: [{ id: "first_seen_event" }] },
  { name: "regression", conditions: [{ id: "regression_event" }] },
  { name: "reappeared", conditions: [{ id: "reappeared_event" }] },
  { name: "every event", conditions: [{ id: "every_event" }] },
  { name: "burst 1m", conditions: [{ id: "event_frequency", value: 100, interval: "1m" }] },
  { name: "busy hour", conditions: [{ id: "event_frequency", value: 1000, interval: "1h" }] },
  { name: "errors", conditions: [{ id: "every_event" }], filters: [{ id: "level", match: "gte", level: "error" }] },
  {
    name: "region r1",
    conditions: [{ id: "every_event" }],
    filters: [{ id: "tagged_event", key: "region", match: "eq", value: "r1" }],
  },
  {
    name: "new or bursting",
    actionMatch: "any",
    conditions: [{ id: "first_seen_event" }, { id: "event_frequency", value: 50, interval: "5m" }],
  },
  {
    name: "production, seen 10 times",
    environment: "production",
    conditions: [{ id: "every_event" }],
    filters: [{ id: "issue_occurrences", value: 10 }],
  },
];

async function http(method: string, path: string, token: string, body: unknown): Promise<void> {
  const response = await faultline.handler(
    new Request(`http://bench${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  if (response.status !== 201) throw new Error(`${method} ${path} → ${response.status}: ${await response.text()}`);
}

beforeAll(async () => {
  faultline = createFaultline({
    database: BENCH_DATABASE_URL,
    schema,
    logger: quietLogger,
    worker: false,
    delivery: { allowPrivateNetworks: true },
  });
  const { api } = faultline;
  const org = await api.organizations.create({ slug: "bench" });
  const owner = await api.users.create({ username: "bench-owner" });
  await api.members.add({ organization: "bench", user: owner.id, role: "owner" });
  const token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
  for (const slug of ["plain", "rules"] as const) {
    const project = await api.projects.create({
      organization: "bench",
      slug,
      platform: "node",
      features: ["servicehooks"],
    });
    projects[slug] = { id: Number(project.id), organizationId: Number(org.id) };
  }
  // Destinations that receive what the rules fire (the worker is off: deliveries only queue).
  await http("POST", "/api/0/projects/bench/rules/hooks/", token, {
    url: "http://127.0.0.1:9/hook",
    events: ["event.alert"],
  });
  await api.apps.create({
    organization: "bench",
    name: "Alerts",
    slug: "alerts",
    isInternal: true,
    webhookUrl: "http://127.0.0.1:9/app",
    events: ["event_alert"],
    scopes: [],
  });
  for (const rule of RULES) await http("POST", "/api/0/projects/bench/rules/rules/", token, rule);
});

afterAll(async () => {
  await faultline?.close();
  const client = await sqlClient();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

type Side = "baseline" | "plain" | "rules";

/** The counters `event_frequency` reads are kept by a trigger on events: off only for the baseline. */
async function counters(enabled: boolean): Promise<void> {
  const client = await sqlClient();
  await client.query(`ALTER TABLE "${schema}".events ${enabled ? "ENABLE" : "DISABLE"} TRIGGER events_count_minutely`);
  await client.end();
}

async function ingest(side: Side): Promise<number> {
  await counters(side !== "baseline");
  const sink = faultline.container.resolve(EventSinkToken);
  const project = { ...projects[side === "rules" ? "rules" : "plain"], platform: "node" };
  const events = Array.from({ length: EVENTS }, (_, i) => benchEvent(i, FINGERPRINTS));
  const started = performance.now();
  await runConcurrently(EVENTS, CONCURRENCY, async (i) => void (await sink.capture(project, events[i])));
  return EVENTS / ((performance.now() - started) / 1000);
}

it("ingest throughput with 10 active issue alert rules vs none", async () => {
  await ingest("plain"); // warm-up: connections, plans, first issues
  await ingest("rules");
  const samples: Record<Side, number[]> = { baseline: [], plain: [], rules: [] };
  const order: Side[] = ["baseline", "plain", "rules"];
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? order : [...order].reverse()) samples[side].push(await ingest(side));
  }
  const best = {
    baseline: Math.max(...samples.baseline),
    plain: Math.max(...samples.plain),
    rules: Math.max(...samples.rules),
  };
  await counters(true);
  const percent = (ratio: number) => `${Math.round(ratio * 100)} %`;
  report(
    `Ingest with issue alert rules, ${EVENTS} events per run, ${CONCURRENCY} concurrent captures, ${FINGERPRINTS} fingerprints, best of ${ROUNDS}`,
    [
      {
        "events/s, no counters, no rules (before alerts)": Math.round(best.baseline),
        "events/s, counters, no rules": Math.round(best.plain),
        "events/s, 10 active rules": Math.round(best.rules),
        "10 rules / before alerts": percent(best.rules / best.baseline),
        "10 rules / no rules": percent(best.rules / best.plain),
      },
    ],
  );
  // Every run, so a noisy machine shows as noise rather than as a figure.
  process.stdout.write(
    `runs (events/s): ${order.map((side) => `${side} ${samples[side].map(Math.round).join(" / ")}`).join("; ")}\n`,
  );
  expect(best.rules).toBeGreaterThan(0);
});
