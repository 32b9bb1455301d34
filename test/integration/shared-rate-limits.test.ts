import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { leaseSize } from "../../src/plugins/ingest/limits/rate-limit.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { type RunningServer, serveFaultline } from "../helpers/server.js";

const LIMIT = 40;

/** One event as @sentry/node 11 sends it. */
function envelope(): string {
  const id = randomUUID().replaceAll("-", "");
  return [JSON.stringify({ event_id: id }), '{"type":"event"}', JSON.stringify({ event_id: id, ...errorEvent() })].join(
    "\n",
  );
}

describe("rate limits shared across instances (#17)", () => {
  // Frozen mid-minute: every event falls in one window, and Retry-After is known.
  let now = Date.UTC(2026, 10, 25, 12, 0, 20);
  const clock = { now: () => new Date(now) };
  let first: TestInstance;
  let second: Faultline<FaultlineApi>;
  let servers: RunningServer[];
  let project: { id: string; key: string };

  beforeAll(async () => {
    first = await createTestInstance({ clock, worker: false, logger: silentLogger });
    // A second host replica: its own instance (own caches, own leases) on the same schema.
    second = createFaultline({
      database: first.database,
      schema: first.schema,
      clock,
      worker: false,
      logger: silentLogger,
    });
    await first.faultline.api.organizations.create({ slug: "acme" });
    const created = await first.faultline.api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    project = { id: created.id, key: created.keys[0]?.public as string };
    await first.faultline.container
      .resolve(tokens.Db)
      .updateTable("project_keys")
      .set({ rate_limit_per_minute: LIMIT })
      .where("public_key", "=", project.key)
      .execute();
    servers = [await serveFaultline(first.faultline), await serveFaultline(second)];
  });
  afterAll(async () => {
    for (const server of servers ?? []) await server.close();
    await second?.close();
    await first?.close();
  });

  const send = (server: RunningServer) =>
    fetch(`${server.url}/api/${project.id}/envelope/?sentry_version=7&sentry_key=${project.key}`, {
      method: "POST",
      body: envelope(),
    });

  it("two replicas enforce one limit: events sent alternately are accepted up to the limit in total, then 429", async () => {
    const statuses: number[] = [];
    const refusals: Response[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const response = await send(servers[i % 2] as RunningServer);
      statuses.push(response.status);
      if (response.status === 429) refusals.push(response);
      else await response.body?.cancel();
    }
    const accepted = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    // Never more than the limit; less by at most the quota each replica holds leased and unspent.
    expect(accepted).toBeLessThanOrEqual(LIMIT);
    expect(accepted).toBeGreaterThan(LIMIT - 2 * leaseSize(LIMIT));
    // Alone, each replica would have accepted up to LIMIT itself: both refused past the shared total.
    expect(new Set(refusals.map((response) => response.url.split("/api/")[0])).size).toBe(2);
    const refused = refusals[0] as Response;
    expect(refused.headers.get("retry-after")).toBe("40");
    expect(refused.headers.get("x-sentry-rate-limits")).toBe("40:error:project:rate_limited");
    expect(await refused.json()).toEqual({ detail: "Rate limit exceeded; retry after 40 seconds" });

    // The next window starts afresh on both.
    now = Date.UTC(2026, 10, 25, 12, 1, 5);
    for (const server of servers) expect((await send(server)).status).toBe(200);
  });

  it("the worker deletes the counters of ended windows", async () => {
    const db = first.faultline.container.resolve(tokens.Db);
    const windows = async () =>
      (await db.selectFrom("rate_limit_windows").select("window_start").execute()).map((row) =>
        row.window_start.toISOString(),
      );
    expect(await windows()).toEqual(["2026-11-25T12:00:00.000Z", "2026-11-25T12:01:00.000Z"]);
    now = Date.UTC(2026, 10, 25, 12, 2, 30);
    await first.faultline.worker.runDue("ingest.rate-limit-cleanup");
    expect(await windows()).toEqual(["2026-11-25T12:01:00.000Z"]);
  });
});
