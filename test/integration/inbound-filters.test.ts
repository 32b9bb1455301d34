import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logging/logger.js";
import { tokens, type FaultlineOptions } from "../../src/index.js";
import { IngestWorkerPoolToken, OutcomeRecorderToken } from "../../src/plugins/ingest/tokens.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Inbound filters (#32): a project's filters, set through Sentry's `filters/` endpoints (and the
 * patterns through `faultline.api.inboundFilters`), refuse matching events at accept; they are
 * answered 200, never stored, and counted in `stats_v2` as `filtered` with the filter's reason.
 * The same in both ways of accepting (docs/ingest.md): inline on the host's thread (direct
 * ingest, stored at once) and in worker threads (queued ingest, the filter decided in the thread
 * from the settings the host sends with the job; "stored" there is a row in `ingest_queue`).
 */
const OLD_IE = "Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)";
const CURRENT_CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

const modes: Array<{ mode: string; ingest: NonNullable<FaultlineOptions["ingest"]> }> = [
  { mode: "inline", ingest: { queued: false } },
  { mode: "worker threads", ingest: { queued: true, isolation: "threads", threads: 1 } },
];

describe.each(modes)("inbound filters ($mode)", { timeout: 90_000 }, ({ ingest }) => {
  let instance: TestInstance;
  let server: RunningServer;
  let seed: Awaited<ReturnType<typeof seedOrganization>>;
  let key: string;
  const filters = () => `${server.url}/api/0/projects/acme/web/filters/`;
  const auth = () => ({ ...bearer(seed.allScopesToken), "content-type": "application/json" });

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, logger: silentLogger, ingest });
    seed = await seedOrganization(instance.faultline);
    key = seed.project.keys[0]?.public as string;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const put = (id: string, body: unknown) =>
    fetch(`${filters()}${id}/`, { method: "PUT", headers: auth(), body: JSON.stringify(body) });

  /** Whether the event was kept: stored (direct ingest) or queued for the digest (queued ingest). */
  async function kept(id: string): Promise<boolean> {
    if (ingest.queued) {
      const rows = await instance.faultline.container
        .resolve(tokens.Db)
        .selectFrom("ingest_queue")
        .select("id")
        .where("event", "like", `%${id}%`)
        .execute();
      return rows.length > 0;
    }
    const event = await fetch(`${server.url}/api/0/projects/acme/web/events/${id}/`, { headers: auth() });
    await event.body?.cancel();
    return event.status === 200;
  }

  /** Sends one event in an envelope; resolves to whether it was kept. */
  async function stored(overrides: Record<string, unknown>, frames?: Array<Record<string, unknown>>) {
    const id = randomUUID().replaceAll("-", "");
    const body = [{ event_id: id }, { type: "event" }, { event_id: id, ...errorEvent(overrides, frames) }]
      .map((line) => JSON.stringify(line))
      .join("\n");
    const response = await fetch(`${server.url}/api/${seed.project.id}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body,
    });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    return kept(id);
  }

  it("lists Sentry's filters, all off for a new project", async () => {
    const response = await fetch(filters(), { headers: auth() });
    expect(response.status).toBe(200);
    const list = (await response.json()) as Array<Record<string, unknown>>;
    expect(list.map((entry) => [entry.id, entry.active]).sort()).toEqual([
      ["browser-extensions", false],
      ["legacy-browsers", false],
      ["localhost", false],
      ["web-crawlers", false],
    ]);
    expect(list[0]).toEqual({
      id: expect.any(String),
      active: false,
      name: expect.any(String),
      description: expect.any(String),
      hello: `${String(list[0]?.id)} - ${String(list[0]?.name)}`,
    });
  });

  it("turns filters on and off with PUT (204), shows them with GET, and refuses bad input with 4xx saying why", async () => {
    expect((await put("localhost", { active: true })).status).toBe(204);
    expect((await put("legacy-browsers", { subfilters: ["ie", "safari_pre_6"] })).status).toBe(204);
    const localhost = await fetch(`${filters()}localhost/`, { headers: auth() });
    expect(await localhost.json()).toMatchObject({ id: "localhost", active: true });
    const legacy = await fetch(`${filters()}legacy-browsers/`, { headers: auth() });
    expect(await legacy.json()).toMatchObject({ id: "legacy-browsers", active: ["ie", "safari_pre_6"] });

    const unknown = await put("no-such-filter", { active: true });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: string }).detail).toContain("no-such-filter");
    const notBoolean = await put("localhost", { active: "yes" });
    expect(notBoolean.status).toBe(400);
    expect(((await notBoolean.json()) as { detail: string }).detail).toContain("active");
    const missing = await put("web-crawlers", {});
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { detail: string }).detail).toBe("Invalid request: active: required");
    const badSubfilter = await put("legacy-browsers", { subfilters: ["netscape"] });
    expect(badSubfilter.status).toBe(400);
    expect(((await badSubfilter.json()) as { detail: string }).detail).toContain("subfilters");
    const subfiltersElsewhere = await put("localhost", { subfilters: ["ie"] });
    expect(subfiltersElsewhere.status).toBe(400);
    const readOnly = await fetch(`${filters()}localhost/`, {
      method: "PUT",
      headers: { ...bearer(seed.orgReadToken), "content-type": "application/json" },
      body: JSON.stringify({ active: false }),
    });
    expect(readOnly.status).toBe(403);
    await expect(
      instance.faultline.api.inboundFilters.setPatterns("acme", "web", { releases: [""] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("refuses each filter's events and keeps the others, counting each as filtered with its reason", async () => {
    const api = instance.faultline.api.inboundFilters;
    expect((await put("browser-extensions", { active: true })).status).toBe(204);
    expect((await put("web-crawlers", { active: true })).status).toBe(204);
    expect(
      await api.setPatterns("acme", "web", { errorMessages: ["*ResizeObserver loop*"], releases: ["1.0.*"] }),
    ).toEqual({ errorMessages: ["*ResizeObserver loop*"], releases: ["1.0.*"] });

    const headers = (userAgent: string) => ({
      request: { url: "https://shop.test/", headers: { "User-Agent": userAgent } },
    });
    expect(await stored({ user: { ip_address: "127.0.0.1" } })).toBe(false);
    expect(await stored({ request: { url: "http://localhost:3000/cart" } })).toBe(false);
    expect(await stored(headers(OLD_IE))).toBe(false);
    expect(await stored(headers(GOOGLEBOT))).toBe(false);
    expect(await stored({}, [{ abs_path: "chrome-extension://abcdef/content.js", function: "inject" }])).toBe(false);
    expect(
      await stored({ exception: { values: [{ type: "Error", value: "ResizeObserver loop limit exceeded" }] } }),
    ).toBe(false);
    expect(await stored({ release: "1.0.3" })).toBe(false);
    // Kept: a current browser, another release, another message, a public address.
    expect(await stored({ ...headers(CURRENT_CHROME), release: "1.1.0", user: { ip_address: "203.0.113.9" } })).toBe(
      true,
    );

    // Turned off: the same localhost event is kept.
    expect((await put("localhost", { active: false })).status).toBe(204);
    expect(await stored({ user: { ip_address: "127.0.0.1" } })).toBe(true);

    await instance.faultline.container.resolve(OutcomeRecorderToken).flush();
    const response = await fetch(
      `${server.url}/api/0/organizations/acme/stats_v2/?field=sum(quantity)&groupBy=outcome&groupBy=reason&statsPeriod=1h&outcome=filtered`,
      { headers: bearer(seed.orgReadToken) },
    );
    const stats = (await response.json()) as {
      groups: Array<{ by: Record<string, string>; totals: Record<string, number> }>;
    };
    const counted = Object.fromEntries(stats.groups.map((group) => [group.by.reason, group.totals["sum(quantity)"]]));
    expect(counted).toEqual({
      localhost: 2,
      "legacy-browsers": 1,
      "web-crawlers": 1,
      "browser-extensions": 1,
      "error-message": 1,
      "release-version": 1,
    });
    // Threaded mode really ran in the threads (the worker's file is built for the test run).
    if (ingest.isolation === "threads")
      expect(instance.faultline.container.resolve(IngestWorkerPoolToken).running).toBeGreaterThan(0);
  });

  it("answers a filtered /store/ event with its id", async () => {
    expect((await put("localhost", { active: true })).status).toBe(204);
    const id = randomUUID().replaceAll("-", "");
    const response = await fetch(`${server.url}/api/${seed.project.id}/store/?sentry_key=${key}`, {
      method: "POST",
      body: JSON.stringify({ event_id: id, ...errorEvent({ user: { ip_address: "::1" } }) }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id });
    expect(await kept(id)).toBe(false);
  });

  it("takes error-message and release patterns through the project's options, as Sentry's project PUT sends them", async () => {
    const project = `${server.url}/api/0/projects/acme/web/`;
    const options = { "filters:error_messages": "*Script error*\n\n  *ChunkLoadError*  ", "filters:releases": "0.9.*" };
    const update = await fetch(project, {
      method: "PUT",
      headers: auth(),
      // Other option keys Sentry knows pass through unread; the detail can be sent back as it is.
      body: JSON.stringify({ options: { ...options, "sentry:resolve_age": 0 } }),
    });
    expect(update.status).toBe(200);
    const expected = { "filters:error_messages": "*Script error*\n*ChunkLoadError*", "filters:releases": "0.9.*" };
    expect(((await update.json()) as { options: unknown }).options).toEqual(expected);
    const detail = (await (await fetch(project, { headers: auth() })).json()) as { options: unknown };
    expect(detail.options).toEqual(expected);
    expect(await instance.faultline.api.inboundFilters.patterns("acme", "web")).toEqual({
      errorMessages: ["*Script error*", "*ChunkLoadError*"],
      releases: ["0.9.*"],
    });

    // The next event reads the new patterns at once.
    expect(await stored({ exception: { values: [{ type: "ChunkLoadError", value: "Loading chunk 7 failed" }] } })).toBe(
      false,
    );
    expect(await stored({ release: "0.9.3" })).toBe(false);
    expect(await stored({ release: "1.2.0" })).toBe(true);

    const notText = await fetch(project, {
      method: "PUT",
      headers: auth(),
      body: JSON.stringify({ options: { "filters:releases": ["0.9.*"] } }),
    });
    expect(notText.status).toBe(400);
    expect(((await notText.json()) as { detail: string }).detail).toContain("options.filters:releases");
    expect((await instance.faultline.api.inboundFilters.patterns("acme", "web")).releases).toEqual(["0.9.*"]);
  });
});
