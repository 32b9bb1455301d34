import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";

interface Target {
  type: string;
  id: string;
  url: string;
  name: string | null;
  project: { id: string; slug: string } | null;
}
interface DeliveryItem {
  id: string;
  destinationType: string;
  destinationId: string;
  target: Target;
  eventType: string;
  status: string;
  state: string;
  attempts: number;
  lastAttemptAt: string | null;
  lastResponseCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  nextAttemptAt: string | null;
  dateFinished: string | null;
}
interface AttemptItem {
  attempt: number;
  date: string;
  url: string;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

/** A port nothing listens on: a server is opened on a free port and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Issue 27, finding 6: the delivery log must say which destination fails and why. Three service
 * hooks of one project — a receiver answering 500, a closed port, a receiver answering 200 — and an
 * app whose receiver answers 400 (not retried), all real HTTP on 127.0.0.1.
 */
describe("the delivery log says which destination fails and why (#27)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  let healthy: Awaited<ReturnType<typeof startReceiver>>;
  let refusing: Awaited<ReturnType<typeof startReceiver>>;
  let deadUrl = "";
  const hooks: Record<"failing" | "dead" | "healthy", string> = { failing: "", dead: "", healthy: "" };

  async function call(path: string, token = acme.orgReadToken, method = "GET", body?: unknown) {
    const response = await fetch(`${server.url}/api/0${path}`, {
      method,
      headers: { ...bearer(token), ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }
  const list = async (query = ""): Promise<DeliveryItem[]> =>
    (await call(`/organizations/acme/deliveries/${query}`)).body;
  const ofHook = async (hookId: string) => (await list()).find((d) => d.destinationId === hookId);

  beforeAll(async () => {
    failing = await startReceiver([], { fallback: 500 });
    healthy = await startReceiver();
    refusing = await startReceiver([], { fallback: 400 });
    deadUrl = `http://127.0.0.1:${await closedPort()}/dead`;
    // The first retry comes at once, the second an hour later: a failing destination is then seen
    // between attempts, with two failed attempts and a retry scheduled.
    // A generous timeout: on a loaded machine a local receiver answering late would turn an
    // expected 400 or 500 into a timeout (status 0); the closed port refuses at once anyway.
    instance = await createTestInstance({
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20, retryDelays: [0.05, 3600], timeoutMs: 15_000 },
    });
    const { faultline } = instance;
    acme = await seedOrganization(faultline, "acme");
    server = await serveFaultline(faultline);
    const project = await faultline.api.projects.create({
      organization: "acme",
      slug: "shop",
      platform: "node",
      features: ["servicehooks"],
    });
    for (const [key, url] of [
      ["failing", `${failing.url}/hook`],
      ["dead", deadUrl],
      ["healthy", `${healthy.url}/hook`],
    ] as const) {
      const created = await call("/projects/acme/shop/hooks/", acme.allScopesToken, "POST", {
        url,
        events: ["event.created"],
      });
      expect(created.status).toBe(201);
      hooks[key] = (created.body as { id: string }).id;
    }
    await faultline.api.apps.create({
      organization: "acme",
      name: "Ticket Bridge",
      slug: "ticket-bridge",
      webhookUrl: `${refusing.url}/app`,
      events: ["installation"],
    });
    await faultline.api.installations.install({ organization: "acme", app: "ticket-bridge" });
    await captureFor(faultline, { id: project.id, organizationId: acme.organization.id })(
      errorEvent({ fingerprint: ["delivery-log"] }),
    );
    await waitFor(
      async () => {
        const all = await list();
        // Fields the listing had before #27, so that each test below shows its own symptom.
        const settled = (id: string) =>
          all.find((d) => d.destinationId === id && d.attempts === 2 && d.nextAttemptAt !== null);
        return (
          settled(hooks.failing) &&
          settled(hooks.dead) &&
          all.some((d) => d.destinationId === hooks.healthy && d.status === "delivered") &&
          all.some((d) => d.destinationType === "app" && d.status === "failed")
        );
      },
      20_000,
      "two failed attempts of each failing hook, the healthy hook delivered, the app's delivery given up",
    );
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await Promise.all([failing?.close(), healthy?.close(), refusing?.close()]);
    await instance?.close();
  });

  it("names the target of each delivery: kind, id, URL and a human name", async () => {
    const all = await list();
    expect((await ofHook(hooks.failing))?.target).toEqual({
      type: "service_hook",
      id: hooks.failing,
      url: `${failing.url}/hook`,
      name: "shop service hook",
      project: { id: expect.any(String), slug: "shop" },
    });
    expect((await ofHook(hooks.dead))?.target.url).toBe(deadUrl);
    const app = all.find((d) => d.target.type === "app");
    expect(app?.target).toEqual({
      type: "app",
      id: expect.stringMatching(/^\d+$/),
      url: `${refusing.url}/app`,
      name: "Ticket Bridge",
      project: null,
    });
  });

  it("shows a failing destination's last answer, its duration, and when it is tried again", async () => {
    const started = Date.now();
    const failed = await ofHook(hooks.failing);
    expect(failed).toMatchObject({
      status: "pending",
      state: "retrying",
      attempts: 2,
      lastResponseCode: 500,
      lastError: null,
      dateFinished: null,
    });
    expect(failed?.lastDurationMs).toEqual(expect.any(Number));
    // The second failure scheduled the next attempt an hour later (± 10 % jitter).
    const inMs = Date.parse(failed?.nextAttemptAt ?? "") - started;
    expect(inMs).toBeGreaterThan(0.85 * 3_600_000);
    expect(inMs).toBeLessThan(1.15 * 3_600_000);

    // A closed port answers nothing: no response code (not 0), the connection error instead.
    const dead = await ofHook(hooks.dead);
    expect(dead).toMatchObject({
      status: "pending",
      state: "retrying",
      attempts: 2,
      lastResponseCode: null,
      dateFinished: null,
    });
    expect(dead?.lastError).toMatch(/ECONNREFUSED/);
    expect(dead?.nextAttemptAt).not.toBeNull();

    expect(await ofHook(hooks.healthy)).toMatchObject({
      status: "delivered",
      state: "delivered",
      attempts: 1,
      lastResponseCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
  });

  it("filters: failed = the last attempt failed (retrying or given up); retrying; dead = given up", async () => {
    const ids = async (status: string) =>
      (await list(`?status=${status}`))
        .map((d) => (d.target.type === "app" ? "app" : Object.entries(hooks).find(([, id]) => id === d.target.id)?.[0]))
        .sort();
    expect(await ids("failed")).toEqual(["app", "dead", "failing"]);
    expect(await ids("retrying")).toEqual(["dead", "failing"]);
    expect(await ids("dead")).toEqual(["app"]);
    expect(await ids("pending")).toEqual(["dead", "failing"]);
    expect(await ids("delivered")).toEqual(["healthy"]);
    const app = (await list("?status=dead"))[0];
    expect(app).toMatchObject({
      status: "failed",
      state: "dead",
      attempts: 1,
      lastResponseCode: 400,
      nextAttemptAt: null,
      dateFinished: expect.any(String),
    });
  });

  it("opens a delivery: every attempt with its status, duration and error, never a secret", async () => {
    const failed = await ofHook(hooks.failing);
    const detail = await call(`/organizations/acme/deliveries/${failed?.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: failed?.id, state: "retrying", attempts: 2, target: failed?.target });
    const attempts = detail.body.history as AttemptItem[];
    expect(attempts).toEqual(
      [1, 2].map((attempt) => ({
        attempt,
        date: expect.stringMatching(/\.\d{3}Z$/),
        url: `${failing.url}/hook`,
        responseCode: 500,
        durationMs: expect.any(Number),
        error: null,
      })),
    );
    expect(Date.parse(attempts[1]?.date ?? "")).toBeGreaterThan(Date.parse(attempts[0]?.date ?? ""));

    const dead = await ofHook(hooks.dead);
    const deadAttempts = (await call(`/organizations/acme/deliveries/${dead?.id}/`)).body.history as AttemptItem[];
    expect(deadAttempts.map((a) => [a.attempt, a.responseCode])).toEqual([
      [1, null],
      [2, null],
    ]);
    for (const attempt of deadAttempts) expect(attempt.error).toMatch(/ECONNREFUSED/);

    const db = instance.faultline.container.resolve(tokens.Db);
    const { secret } = await db
      .selectFrom("deliveries")
      .select("secret")
      .where("id", "=", failed?.id ?? "")
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(detail.body)).not.toContain(secret);
    expect(Object.keys(detail.body)).not.toEqual(expect.arrayContaining(["secret", "body", "signature"]));
  });

  it("the detail needs org:read in that organization; unknown ids are 404", async () => {
    const failed = await ofHook(hooks.failing);
    expect((await call(`/organizations/acme/deliveries/${failed?.id}/`, acme.eventReadToken)).status).toBe(403);
    expect((await call("/organizations/acme/deliveries/00000000-0000-4000-8000-000000000000/")).status).toBe(404);
    expect((await call("/organizations/acme/deliveries/not-a-uuid/")).status).toBe(404);
    const globex = await seedOrganization(instance.faultline, "globex");
    expect((await call(`/organizations/globex/deliveries/${failed?.id}/`, globex.orgReadToken)).status).toBe(404);
  });

  it("a redelivery of a given-up delivery adds its attempt to the same history", async () => {
    const [app] = await list("?status=dead");
    const before = refusing.received.length;
    expect(
      (await call(`/organizations/acme/deliveries/${app?.id}/redeliver/`, acme.allScopesToken, "POST")).status,
    ).toBe(202);
    await refusing.until((all) => all.length > before);
    const detail = await waitFor(async () => {
      const body = (await call(`/organizations/acme/deliveries/${app?.id}/`)).body as DeliveryItem & {
        history: AttemptItem[];
      };
      return body.history.length === 2 && body.state === "dead" ? body : undefined;
    }, 20_000);
    expect(detail.history.map((a) => [a.attempt, a.responseCode])).toEqual([
      [1, 400],
      [2, 400],
    ]);
    expect(detail).toMatchObject({ attempts: 2, lastResponseCode: 400, state: "dead" });
  });
});
