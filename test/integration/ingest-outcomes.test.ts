import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Ingest outcomes (#14): what became of every event an SDK sent — accepted, refused by the key's
 * rate limit or the full queue, invalid, or discarded by the SDK itself (client reports) —
 * counted per project and hour and read back through Sentry's `stats_v2`.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A clock stopped a second into the current minute: the key's per-minute window cannot roll over
 * between two sends, which under a loaded CI made a spent limit fresh again.
 */
const stoppedInThisMinute = () => {
  const at = new Date(Date.now() - (Date.now() % 60_000) + 1_000);
  return { now: () => at };
};

async function setup(clock?: { now(): Date }): Promise<{
  instance: TestInstance;
  server: RunningServer;
  seed: Awaited<ReturnType<typeof seedOrganization>>;
  key: string;
}> {
  const instance = await createTestInstance({
    worker: false,
    logger: silentLogger,
    ingest: { queued: true, maxQueueDepth: 4 },
    ...(clock && { clock }),
  });
  cleanups.push(() => instance.close());
  const seed = await seedOrganization(instance.faultline);
  const server = await serveFaultline(instance.faultline);
  cleanups.push(() => server.close());
  return { instance, server, seed, key: seed.project.keys[0]?.public as string };
}

function post(server: RunningServer, projectId: string, key: string, lines: unknown[]) {
  const body = lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n");
  return fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, { method: "POST", body });
}

const eventEnvelope = (count = 1) => [
  { event_id: randomUUID().replaceAll("-", "") },
  ...Array.from({ length: count }, () => [{ type: "event" }, errorEvent()]).flat(),
];

describe("ingest outcomes", { timeout: 90_000 }, () => {
  it("counts accepted, rate-limited, queue-full, invalid and client-discarded events, and serves them as stats_v2", async () => {
    const { instance, server, seed, key } = await setup(stoppedInThisMinute());
    const { faultline } = instance;
    const projectId = seed.project.id;
    await faultline.container
      .resolve(tokens.Db)
      .updateTable("project_keys")
      .set({ rate_limit_per_minute: 5 })
      .where("public_key", "=", key)
      .execute();

    expect((await post(server, projectId, key, eventEnvelope(3))).status).toBe(200); // 3 accepted (queue: 3 of 4)
    expect((await post(server, projectId, key, eventEnvelope(2))).status).toBe(429); // queue full: 2 refused (rate: 5 of 5 used)
    expect((await post(server, projectId, key, eventEnvelope(1))).status).toBe(429); // key quota: 1 refused
    const report = {
      timestamp: Date.now() / 1000,
      discarded_events: [{ reason: "network_error", category: "error", quantity: 7 }],
    };
    expect((await post(server, projectId, key, [{}, { type: "client_report" }, report])).status).toBe(200);
    await faultline.container.resolve(OutcomeRecorderToken).flush();

    const response = await fetch(
      `${server.url}/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=outcome&groupBy=reason&statsPeriod=24h&interval=1h`,
      {
        headers: bearer(seed.orgReadToken),
      },
    );
    expect(response.status).toBe(200);
    const stats = (await response.json()) as {
      intervals: string[];
      groups: Array<{ by: Record<string, string>; totals: Record<string, number>; series: Record<string, number[]> }>;
    };
    const totals = Object.fromEntries(
      stats.groups.map((group) => [`${group.by.outcome}/${group.by.reason}`, group.totals["sum(quantity)"]]),
    );
    expect(totals).toEqual({
      "accepted/": 3,
      "rate_limited/queue_full": 2,
      "rate_limited/key_quota": 1,
      "client_discard/network_error": 7,
    });
    // 24 hours in hour buckets (25 when the window straddles an hour boundary); each series adds up to its total.
    expect(stats.intervals.length).toBeGreaterThanOrEqual(24);
    for (const group of stats.groups) {
      expect(group.series["sum(quantity)"]).toHaveLength(stats.intervals.length);
      expect(group.series["sum(quantity)"]?.reduce((sum, n) => sum + n, 0)).toBe(group.totals["sum(quantity)"]);
    }

    // The same counters grouped and filtered differently; a second flush adds to them.
    expect((await post(server, projectId, key, eventEnvelope(1))).status).toBe(429); // still over the key's quota
    expect((await post(server, projectId, key, [{}, { type: "event" }, "[1]"])).status).toBe(400); // invalid: refused before any quota
    await faultline.container.resolve(OutcomeRecorderToken).flush();
    const byProject = await fetch(
      `${server.url}/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=project&outcome=rate_limited&project=${projectId}`,
      {
        headers: bearer(seed.orgReadToken),
      },
    );
    expect((await byProject.json()).groups).toEqual([
      {
        by: { project: Number(projectId) },
        totals: { "sum(quantity)": 4 },
        series: { "sum(quantity)": expect.any(Array) },
      },
    ]);
    const invalid = await fetch(
      `${server.url}/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=outcome&groupBy=category&outcome=invalid`,
      { headers: bearer(seed.orgReadToken) },
    );
    expect(
      (await invalid.json()).groups.map((group: { by: object; totals: object }) => [group.by, group.totals]),
    ).toEqual([[{ outcome: "invalid", category: "error" }, { "sum(quantity)": 1 }]]);
  });

  it("explains a bad query with a 400 and keeps other organizations' counts out", async () => {
    const { instance, server, seed, key } = await setup();
    expect((await post(server, seed.project.id, key, eventEnvelope(1))).status).toBe(200);
    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    const get = (query: string, token = seed.orgReadToken) =>
      fetch(`${server.url}/api/0/organizations/acme/stats_v2/?${query}`, { headers: bearer(token) });

    const missingField = await get("groupBy=outcome");
    expect(missingField.status).toBe(400);
    expect((await missingField.json()).detail).toMatch(/field/);
    const badPeriod = await get("field=sum(quantity)&statsPeriod=fortnight");
    expect(badPeriod.status).toBe(400);
    expect((await badPeriod.json()).detail).toMatch(/statsPeriod/);
    const tooFine = await get("field=sum(quantity)&statsPeriod=90d&interval=30m");
    expect(tooFine.status).toBe(400);
    expect((await get("field=sum(quantity)&start=2026-01-01T00:00:00Z")).status).toBe(400);

    const other = await seedOrganization(instance.faultline, "globex");
    const theirs = await get("field=sum(quantity)&groupBy=outcome", other.orgReadToken);
    expect(theirs.status).toBe(404);
    const ownEmpty = await fetch(
      `${server.url}/api/0/organizations/globex/stats_v2/?field=sum(quantity)&groupBy=outcome`,
      { headers: bearer(other.orgReadToken) },
    );
    expect((await ownEmpty.json()).groups).toEqual([]);
  });
});
