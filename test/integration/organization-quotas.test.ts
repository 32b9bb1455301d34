import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFaultline,
  definePlugin,
  type DomainEventMap,
  type Faultline,
  type FaultlineApi,
  tokens,
} from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { leaseSize } from "../../src/plugins/ingest/limits/rate-limit.js";
import { OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import { sleep, waitFor } from "../helpers/wait.js";

/**
 * Organization quotas and spike protection (#32): budgets set by the host through
 * `faultline.api.quotas`, spent by two instances on one database together, answered 429 with
 * an organization-scoped `X-Sentry-Rate-Limits`, counted as `rate_limited` outcomes, and
 * announced once per throttling episode as `organization.throttled`.
 */
type Throttled = DomainEventMap["organization.throttled"] & { organizationId: number };

function envelope(): string {
  const id = randomUUID().replaceAll("-", "");
  return [JSON.stringify({ event_id: id }), '{"type":"event"}', JSON.stringify({ event_id: id, ...errorEvent() })].join(
    "\n",
  );
}

describe("organization quotas across two instances", { timeout: 120_000 }, () => {
  // Frozen 20 s into an hour: every event falls in one hourly window, and Retry-After is known.
  let now = Date.UTC(2026, 10, 25, 12, 0, 20);
  const clock = { now: () => new Date(now) };
  const throttled: Throttled[] = [];
  const watcher = () =>
    definePlugin({
      id: "throttle-watcher",
      on: {
        "organization.throttled": (event) =>
          void throttled.push({ ...event.payload, organizationId: event.organizationId }),
      },
    });
  let first: TestInstance;
  let second: Faultline<FaultlineApi>;
  let servers: RunningServer[];
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  const projects = new Map<string, { id: string; key: string; organizationId: number }>();

  beforeAll(async () => {
    first = await createTestInstance({ clock, worker: false, logger: silentLogger, plugins: [watcher()] });
    // A second host replica: its own instance (own caches, own leases) on the same schema.
    second = createFaultline({
      database: first.database,
      schema: first.schema,
      clock,
      worker: false,
      logger: silentLogger,
      plugins: [watcher()],
    });
    acme = await seedOrganization(first.faultline);
    projects.set("acme", {
      id: acme.project.id,
      key: acme.project.keys[0]?.public as string,
      organizationId: Number(acme.organization.id),
    });
    for (const slug of ["globex", "initech", "umbrella"]) {
      const organization = await first.faultline.api.organizations.create({ slug });
      const project = await first.faultline.api.projects.create({ organization: slug, slug: "web", platform: "node" });
      projects.set(slug, {
        id: project.id,
        key: project.keys[0]?.public as string,
        organizationId: Number(organization.id),
      });
    }
    servers = [await serveFaultline(first.faultline), await serveFaultline(second)];
  });
  afterAll(async () => {
    for (const server of servers ?? []) await server.close();
    await second?.close();
    await first?.close();
  });

  const send = (server: RunningServer, slug: string) => {
    const project = projects.get(slug) as { id: string; key: string };
    return fetch(`${server.url}/api/${project.id}/envelope/?sentry_version=7&sentry_key=${project.key}`, {
      method: "POST",
      body: envelope(),
    });
  };

  /** Sends `count` events alternately through both instances; the statuses and the first refusal. */
  async function sendAlternately(slug: string, count: number) {
    const statuses: number[] = [];
    const refusals: Response[] = [];
    for (let i = 0; i < count; i++) {
      const response = await send(servers[i % 2] as RunningServer, slug);
      statuses.push(response.status);
      if (response.status === 429) refusals.push(response);
      else await response.body?.cancel();
    }
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    return { accepted: statuses.filter((status) => status === 200).length, refusals };
  }

  /** The throttling events of one organization, once the announcements in flight have landed. */
  async function throttledOf(slug: string, atLeast = 1): Promise<Throttled[]> {
    const id = projects.get(slug)?.organizationId;
    const of = () => throttled.filter((event) => event.organizationId === id);
    await waitFor(async () => of().length >= atLeast, 5_000, `${slug} throttled`);
    await sleep(300); // a second announcement, were there one, would land by now
    return of();
  }

  it("refuses bad settings and unknown organizations", async () => {
    await expect(first.faultline.api.quotas.set("acme", { eventsPerHour: -1 })).rejects.toMatchObject({ status: 400 });
    await expect(
      first.faultline.api.quotas.set("acme", { spikeProtection: { multiple: 0, minimumPerHour: 5 } }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(first.faultline.api.quotas.set("nope", { eventsPerHour: 5 })).rejects.toMatchObject({ status: 404 });
    expect(await first.faultline.api.quotas.get("acme")).toEqual({
      eventsPerHour: null,
      eventsPerMonth: null,
      spikeProtection: null,
    });
  });

  it("two instances spend one hourly budget, refuse with an organization-scoped 429, and announce it once", async () => {
    const LIMIT = 40;
    await first.faultline.api.quotas.set("acme", { eventsPerHour: LIMIT });
    const { accepted, refusals } = await sendAlternately("acme", 2 * LIMIT);
    // Never more than the budget; less by at most the quota each instance holds leased and unspent.
    expect(accepted).toBeLessThanOrEqual(LIMIT);
    expect(accepted).toBeGreaterThan(LIMIT - 2 * leaseSize(LIMIT));
    expect(new Set(refusals.map((response) => response.url.split("/api/")[0])).size).toBe(2);
    const refused = refusals[0] as Response;
    expect(refused.headers.get("retry-after")).toBe("3580");
    expect(refused.headers.get("x-sentry-rate-limits")).toBe("3580:error:organization:usage_exceeded");
    expect(await refused.json()).toEqual({
      detail: "Organization quota exceeded (usage_exceeded); retry after 3580 seconds",
    });

    expect(await throttledOf("acme")).toEqual([
      {
        organizationId: projects.get("acme")?.organizationId,
        reason: "usage_exceeded",
        period: "hour",
        limit: LIMIT,
        windowStart: new Date("2026-11-25T12:00:00Z"),
        windowEnd: new Date("2026-11-25T13:00:00Z"),
      },
    ]);

    // Refusals are counted as rate_limited with the reason, whichever instance refused.
    for (const instance of [first.faultline, second]) await instance.container.resolve(OutcomeRecorderToken).flush();
    const stats = await fetch(
      `${servers[0]?.url}/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=outcome&groupBy=reason&statsPeriod=1h`,
      { headers: bearer(acme.orgReadToken) },
    );
    const body = (await stats.json()) as {
      groups: Array<{ by: Record<string, string>; totals: Record<string, number> }>;
    };
    const total = (outcome: string, reason: string) =>
      body.groups.find((group) => group.by.outcome === outcome && group.by.reason === reason)?.totals["sum(quantity)"];
    expect(total("accepted", "")).toBe(accepted);
    expect(total("rate_limited", "usage_exceeded")).toBe(2 * LIMIT - accepted);

    // The next hour starts afresh on both instances.
    now = Date.UTC(2026, 10, 25, 13, 0, 5);
    for (const server of servers) expect((await send(server, "acme")).status).toBe(200);
  });

  it("a monthly budget refuses until the calendar month ends", async () => {
    await first.faultline.api.quotas.set("globex", { eventsPerMonth: 5 });
    const { accepted, refusals } = await sendAlternately("globex", 8);
    expect(accepted).toBeLessThanOrEqual(5);
    expect(accepted).toBeGreaterThanOrEqual(5 - 2 * leaseSize(5));
    // From 2026-11-25T13:00:05Z to 2026-12-01T00:00:00Z.
    const seconds = (Date.UTC(2026, 11, 1) - now) / 1000;
    expect(refusals[0]?.headers.get("x-sentry-rate-limits")).toBe(`${seconds}:error:organization:usage_exceeded`);
    expect(await throttledOf("globex")).toMatchObject([{ reason: "usage_exceeded", period: "month", limit: 5 }]);
  });

  it("spike protection holds an organization to a multiple of its recent hourly average, and to the minimum without history", async () => {
    const db = first.faultline.container.resolve(tokens.Db);
    const hour = Date.UTC(2026, 10, 25, 13);
    // initech sent 15 events an hour over the previous day: twice that is its limit this hour.
    await db
      .insertInto("organization_quota_windows")
      .values(
        Array.from({ length: 24 }, (_, i) => ({
          organization_id: projects.get("initech")?.organizationId as number,
          period: "hour" as const,
          window_start: new Date(hour - (i + 1) * 3_600_000),
          used: 15,
        })),
      )
      .execute();
    const protection = { spikeProtection: { multiple: 2, minimumPerHour: 10 } };
    await first.faultline.api.quotas.set("initech", protection);
    await first.faultline.api.quotas.set("umbrella", protection);

    const initech = await sendAlternately("initech", 40);
    expect(initech.accepted).toBeLessThanOrEqual(30);
    expect(initech.accepted).toBeGreaterThan(30 - 2 * leaseSize(30));
    expect(initech.refusals[0]?.headers.get("x-sentry-rate-limits")).toMatch(
      /^\d+:error:organization:spike_protection$/,
    );
    expect(await throttledOf("initech")).toMatchObject([{ reason: "spike_protection", period: "hour", limit: 30 }]);

    const umbrella = await sendAlternately("umbrella", 15);
    expect(umbrella.accepted).toBeLessThanOrEqual(10);
    expect(umbrella.accepted).toBeGreaterThan(10 - 2 * leaseSize(10));
    expect(await throttledOf("umbrella")).toMatchObject([{ reason: "spike_protection", limit: 10 }]);
  });

  it("the worker deletes counters no budget reads any more", async () => {
    const db = first.faultline.container.resolve(tokens.Db);
    const initech = projects.get("initech")?.organizationId as number;
    const hours = async () =>
      (
        await db
          .selectFrom("organization_quota_windows")
          .select("window_start")
          .where("organization_id", "=", initech)
          .execute()
      ).length;
    expect(await hours()).toBe(25);
    now = Date.UTC(2026, 10, 26, 14, 30); // a day and an hour later: the seeded hours are past the baseline
    await first.faultline.worker.runDue("quotas.window-cleanup");
    expect(await hours()).toBe(1);
  });
});
