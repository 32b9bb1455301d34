import { afterEach, describe, expect, it } from "vitest";
import { createFaultline, definePlugin, SCOPES, tokens } from "../../src/index.js";
import { createTestInstance } from "../../src/testing/index.js";
import { verifySignature, verifyStandardWebhook } from "../../src/verify.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { type Reply, startReceiver } from "../helpers/receiver.js";
import { bearer } from "../helpers/server.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An instance with an app subscribed to every category and a receiver behind its webhook URL. */
async function setup(script: Reply[] = [], options: Parameters<typeof createTestInstance>[0] = {}, events: Array<"issue" | "error" | "comment" | "installation"> = ["issue", "error", "comment", "installation"]) {
  const receiver = await startReceiver(script);
  const instance = await createTestInstance({
    announce: false,
    ...options,
    delivery: { allowPrivateNetworks: true, pollIntervalMs: 20, retryDelays: [0.05, 0.05, 0.05], timeoutMs: 500, ...options.delivery },
  });
  cleanups.push(receiver.close, instance.close);
  const { api } = instance.faultline;
  const org = await api.organizations.create({ slug: "acme" });
  const owner = await api.users.create({ username: "ada", name: "Ada" });
  await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
  const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
  const app = await api.apps.create({
    organization: "acme",
    name: "Tracker",
    slug: "tracker",
    isInternal: true,
    webhookUrl: `${receiver.url}/app`,
    events,
    scopes: ["event:read"],
  });
  const token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
  const capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
  const db = instance.faultline.container.resolve(tokens.Db);
  return { instance, receiver, app, token, capture, db, org, project };
}

const deliveriesOf = (db: Awaited<ReturnType<typeof setup>>["db"], eventType: string) =>
  db.selectFrom("deliveries").selectAll().where("event_type", "=", eventType).execute();

describe("app webhooks", { timeout: 60_000 }, () => {
  it("deliver issue, error and installation events with the documented envelope, headers and signatures", async () => {
    const { receiver, app, token, capture, instance } = await setup();
    const { eventId } = await capture(errorEvent({ fingerprint: ["app-hooks"] }));
    const issueId = (await receiver.until((all) => all.some((r) => r.headers["svc-hook-resource"] === "issue"))).find((r) => r.json.action === "created" && r.headers["svc-hook-resource"] === "issue")?.json as { data: { issue: { id: string } } };
    await instance.faultline.handler(
      new Request(`http://x/api/0/organizations/acme/issues/${issueId.data.issue.id}/`, { method: "PUT", headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify({ status: "resolved", assignedTo: "ada" }) }),
    );
    const all = await receiver.until((requests) => requests.length >= 5);
    const byType = (resource: string, action: string) => all.find((r) => r.headers["svc-hook-resource"] === resource && r.json.action === action);
    for (const request of all) {
      expect(request.headers["request-id"]).toBe(request.headers["webhook-id"]);
      expect(verifySignature(request.body, request.headers["svc-hook-signature"] as string, app.clientSecret)).toBe(true);
      expect(verifyStandardWebhook(request.body, request.headers as Record<string, string>, app.clientSecret)).toBe(true);
      expect(request.json.installation).toEqual({ uuid: app.installation?.uuid });
    }
    expect(byType("installation", "created")?.json.data).toMatchObject({ installation: { uuid: app.installation?.uuid, app: { slug: "tracker" }, organization: { slug: "acme" }, status: "installed" } });
    const created = byType("issue", "created")?.json;
    expect(created).toMatchObject({ actor: { type: "application", id: "svc", name: "svc" }, data: { issue: { shortId: "WEB-1", status: "unresolved", count: 1, project: { slug: "web" } } } });
    expect(typeof (created?.data as { issue: { count: unknown } }).issue.count).toBe("number");
    expect(byType("error", "created")?.json.data).toMatchObject({ error: { event_id: eventId, issue_id: issueId.data.issue.id, issue_url: expect.stringContaining("/issues/") } });
    expect(byType("issue", "resolved")?.json).toMatchObject({ actor: { type: "user", name: "Ada" }, data: { resolution_type: "now" } });
    expect(byType("issue", "assigned")?.json.data).toMatchObject({ assignee: { type: "user", name: "ada" } });
  });

  it("never sends another organization's events, nor unsubscribed categories", async () => {
    const { receiver, instance } = await setup();
    const { api } = instance.faultline;
    const other = await api.organizations.create({ slug: "globex" });
    const otherProject = await api.projects.create({ organization: "globex", slug: "web" });
    await api.apps.create({ organization: "globex", name: "Errors only", slug: "errors-only", isInternal: true, webhookUrl: `${receiver.url}/errors-only`, events: ["error"] });
    await captureFor(instance.faultline, { id: otherProject.id, organizationId: other.id })(errorEvent({ fingerprint: ["globex"] }));
    await instance.faultline.worker.runDue("delivery.send");
    await receiver.until((all) => all.some((r) => r.path === "/errors-only"));
    expect(receiver.received.filter((r) => r.path === "/app" && r.json.action !== "created").length).toBe(0);
    expect(receiver.received.filter((r) => r.path === "/app" && r.headers["svc-hook-resource"] !== "installation")).toEqual([]);
    expect(receiver.received.filter((r) => r.path === "/errors-only").map((r) => r.headers["svc-hook-resource"])).toEqual(["error"]);
  });
});

describe("delivery policy", { timeout: 60_000 }, () => {
  it("retries 503 twice then succeeds: three attempts, one delivery id", async () => {
    const { receiver, capture, db } = await setup([503, 503], {}, ["error"]);
    await capture(errorEvent({ fingerprint: ["retry"] }));
    await receiver.until((all) => all.filter((r) => r.headers["svc-hook-resource"] === "error").length >= 3);
    const attempts = receiver.received.filter((r) => r.headers["svc-hook-resource"] === "error");
    expect(new Set(attempts.map((r) => r.headers["webhook-id"])).size).toBe(1);
    await waitFor(async () => (await deliveriesOf(db, "error.created"))[0]?.status === "delivered");
    const [delivery] = await deliveriesOf(db, "error.created");
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, last_response_code: 200 });
  });

  it("does not retry a 400, and disables the destination on 410", async () => {
    const { receiver, capture, db, app } = await setup([400, 410], {}, ["error"]);
    await capture(errorEvent({ fingerprint: ["client-error"] }));
    await capture(errorEvent({ fingerprint: ["client-error-2"] }));
    await receiver.until((all) => all.length >= 2);
    await waitFor(async () => (await db.selectFrom("deliveries").select("status").where("status", "=", "pending").execute()).length === 0);
    const statuses = await db.selectFrom("deliveries").select(["event_type", "status", "attempts", "last_response_code"]).orderBy("date_created").execute();
    expect(statuses.find((d) => d.last_response_code === 400)).toMatchObject({ status: "failed", attempts: 1 });
    expect(statuses.find((d) => d.last_response_code === 410)).toMatchObject({ status: "failed" });
    const row = await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow();
    expect(row.webhook_status).toBe("disabled");
    const before = (await deliveriesOf(db, "error.created")).length;
    await capture(errorEvent({ fingerprint: ["after-disable"] }));
    expect((await deliveriesOf(db, "error.created")).length).toBe(before);
  });

  it("counts a receiver that hangs past the timeout as a failure and retries it", async () => {
    const { receiver, capture, db } = await setup([{ status: 200, delayMs: 2000 }], {}, ["error"]);
    await capture(errorEvent({ fingerprint: ["slow"] }));
    await waitFor(async () => (await deliveriesOf(db, "error.created"))[0]?.status === "delivered", 8000);
    const [delivery] = await deliveriesOf(db, "error.created");
    expect(delivery?.attempts).toBe(2);
    expect(receiver.received.filter((r) => r.headers["svc-hook-resource"] === "error")).toHaveLength(2);
  });

  it("sends nothing when the change's transaction rolls back", async () => {
    let fail = false;
    const saboteur = definePlugin({
      id: "saboteur",
      on: {
        "issue.resolved": () => {
          if (fail) throw new Error("boom");
        },
      },
    });
    const { db, capture, token, instance } = await setup([], { plugins: [saboteur], logger: quiet });
    await capture(errorEvent({ fingerprint: ["rollback"] }));
    const issue = await db.selectFrom("issues").select("id").executeTakeFirstOrThrow();
    fail = true;
    const response = await instance.faultline.handler(
      new Request(`http://x/api/0/organizations/acme/issues/${issue.id}/`, { method: "PUT", headers: { ...bearer(token), "content-type": "application/json" }, body: '{"status":"resolved"}' }),
    );
    expect(response.status).toBe(500);
    expect(await deliveriesOf(db, "issue.resolved")).toEqual([]);
    expect((await db.selectFrom("issues").select("status").executeTakeFirstOrThrow()).status).toBe("unresolved");
  });

  it("loses nothing when the instance stops with deliveries due: the next instance sends them", async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const first = await createTestInstance({ announce: false, worker: false, delivery: { allowPrivateNetworks: true } });
    const { api } = first.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const project = await api.projects.create({ organization: "acme", slug: "web" });
    await api.apps.create({ organization: "acme", name: "T", slug: "t", isInternal: true, webhookUrl: `${receiver.url}/t`, events: ["error"] });
    const capture = captureFor(first.faultline, { id: project.id, organizationId: org.id });
    for (let i = 0; i < 5; i++) await capture(errorEvent({ fingerprint: [`crash-${i}`] }));
    // A worker that claimed a delivery and died mid-send: the lease is in the future, attempts counted.
    const db = first.faultline.container.resolve(tokens.Db);
    await db.updateTable("deliveries").set({ attempts: 1, next_attempt_at: new Date(Date.now() + 60_000) }).where("id", "=", db.selectFrom("deliveries").select("id").limit(1)).execute();
    await first.faultline.close();
    const later = { now: () => new Date(Date.now() + 120_000) };
    const second = createFaultline({ database: first.database, schema: first.schema, logger: quiet, clock: later, delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 } });
    cleanups.push(async () => {
      await second.close();
      await first.close();
    });
    await second.ready();
    await receiver.until((all) => new Set(all.map((r) => r.headers["webhook-id"])).size === 5);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(5);
  });

  it("two instances with workers on one database send each delivery exactly once", async () => {
    const { receiver, capture, instance } = await setup();
    const second = createFaultline({ database: instance.database, schema: instance.schema, logger: quiet, delivery: { allowPrivateNetworks: true, pollIntervalMs: 10 } });
    cleanups.push(() => second.close());
    await second.ready();
    await Promise.all(Array.from({ length: 30 }, (_, i) => capture(errorEvent({ fingerprint: [`twice-${i % 3}`] }))));
    await receiver.until((all) => all.filter((r) => r.headers["svc-hook-resource"] === "error").length >= 30);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(ids.length).toBe(new Set(ids).size);
  });

  it("refuses at send time a destination that is private when private networks are not allowed", async () => {
    const { db, capture, instance, org } = await setup([], { delivery: { allowPrivateNetworks: false } }, ["error"]);
    void instance;
    await capture(errorEvent({ fingerprint: ["ssrf"] }));
    await waitFor(async () => (await deliveriesOf(db, "error.created"))[0]?.last_error != null);
    const [delivery] = await deliveriesOf(db, "error.created");
    expect(delivery?.last_error).toMatch(/private address/);
    expect(delivery?.last_response_code).toBe(0);
    void org;
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("disabling a failing destination", () => {
  it("disables a destination after five days of failures with no success, and tells the host", async () => {
    let now = new Date("2026-05-01T00:00:00Z");
    const disabled: unknown[] = [];
    const watcher = definePlugin({ id: "watcher", on: { "delivery.destination_disabled": (event) => void disabled.push(event.payload) } });
    const receiver = await startReceiver(Array.from({ length: 20 }, () => 500));
    const instance = await createTestInstance({
      announce: false,
      worker: false,
      clock: { now: () => now },
      plugins: [watcher],
      delivery: { allowPrivateNetworks: true, retryDelays: Array.from({ length: 10 }, () => 0) },
    });
    cleanups.push(receiver.close, instance.close);
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const project = await api.projects.create({ organization: "acme", slug: "web" });
    const app = await api.apps.create({ organization: "acme", name: "Flaky", slug: "flaky", isInternal: true, webhookUrl: `${receiver.url}/flaky`, events: ["error"] });
    const capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    await capture(errorEvent({ fingerprint: ["d1"] }));
    const send = () => instance.faultline.worker.runDue("delivery.send");
    await send();
    const db = instance.faultline.container.resolve(tokens.Db);
    expect((await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow()).webhook_status).toBe("active");
    now = new Date(now.getTime() + 4 * 86_400_000);
    await capture(errorEvent({ fingerprint: ["d2"] }));
    await send();
    expect((await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow()).webhook_status).toBe("active");
    now = new Date(now.getTime() + 86_400_000 + 1000);
    await capture(errorEvent({ fingerprint: ["d3"] }));
    await send();
    expect((await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow()).webhook_status).toBe("disabled");
    expect(disabled).toEqual([{ destinationType: "app", destinationId: expect.any(String), reason: "failing" }]);
  });
});
