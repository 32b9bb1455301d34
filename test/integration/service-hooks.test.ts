import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature, verifyStandardWebhook } from "../../src/verify.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

describe("service hooks", () => {
  let instance: TestInstance;
  let strict: TestInstance;
  let server: RunningServer;
  let token: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let capture: ReturnType<typeof captureFor>;
  const hooksPath = (project = "web") => `${server.url}/api/0/projects/acme/${project}/hooks/`;
  const post = (url: string, body: unknown, auth = token) =>
    fetch(url, { method: "POST", headers: { ...bearer(auth), "content-type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    instance = await createTestInstance({ delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 } });
    strict = await createTestInstance({ announce: false, worker: false });
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const owner = await api.users.create({ username: "owner" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node", features: ["servicehooks"] });
    await api.projects.create({ organization: "acme", slug: "plain" });
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
    capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    receiver = await startReceiver();
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await instance?.close();
    await strict?.close();
  });

  it("creates a hook (201, 64-hex secret shown once) and reads it back without the secret", async () => {
    const created = await post(hooksPath(), { url: `${receiver.url}/hook`, events: ["event.created", "event.alert"] });
    expect(created.status).toBe(201);
    const hook = await created.json();
    expect(hook).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), url: `${receiver.url}/hook`, events: ["event.alert", "event.created"], status: "active" });
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(hook.dateCreated).toMatch(/\.\d{3}Z$/);
    const read = await (await fetch(`${hooksPath()}${hook.id}/`, { headers: bearer(token) })).json();
    expect(read.secret).toBeUndefined();
    const list = await (await fetch(hooksPath(), { headers: bearer(token) })).json();
    expect(list.map((h: { id: string }) => h.id)).toContain(hook.id);
    expect(list[0].secret).toBeUndefined();
  });

  it("refuses projects without the feature, unknown events and bad URLs", async () => {
    const gated = await post(hooksPath("plain"), { url: `${receiver.url}/x`, events: ["event.created"] });
    expect(gated.status).toBe(403);
    expect(await gated.json()).toEqual({ detail: "The servicehooks feature is not enabled for this project" });
    const badEvent = await post(hooksPath(), { url: `${receiver.url}/x`, events: ["event.created", "issue.exploded"] });
    expect(badEvent.status).toBe(400);
    expect((await badEvent.json()).errors.events).toEqual(["Invalid event name: issue.exploded"]);
    const badUrl = await post(hooksPath(), { url: "ftp://example.com/", events: ["event.created"] });
    expect(badUrl.status).toBe(400);
    expect((await badUrl.json()).errors.url[0]).toMatch(/http/);
  });

  it("refuses private destinations at creation unless private networks are allowed", async () => {
    const { api } = strict.faultline;
    await api.organizations.create({ slug: "strict" });
    const user = await api.users.create({ username: "s" });
    await api.members.add({ organization: "strict", user: user.id, role: "owner" });
    await api.projects.create({ organization: "strict", slug: "web", features: ["servicehooks"] });
    const strictToken = (await api.tokens.create({ user: user.id, scopes: [...SCOPES] })).token;
    for (const url of ["http://127.0.0.1:9/h", "http://10.0.0.1/h", "http://169.254.169.254/latest", "http://[::1]/h", "http://[::ffff:10.0.0.1]/h", "http://localhost/h"]) {
      const response = await strict.faultline.handler(
        new Request("http://x/api/0/projects/strict/web/hooks/", { method: "POST", headers: { ...bearer(strictToken), "content-type": "application/json" }, body: JSON.stringify({ url, events: ["event.created"] }) }),
      );
      expect(response.status, url).toBe(400);
      expect((await response.json()).errors.url[0], url).toMatch(/private/);
    }
  });

  it("delivers event.created for every ingested event, signed both ways over the exact bytes", async () => {
    const hook = await (await post(hooksPath(), { url: `${receiver.url}/signed`, events: ["event.created"] })).json();
    const { eventId } = await capture(errorEvent({ tags: { browser: "Firefox" }, fingerprint: ["hooked"] }));
    const [request] = (await receiver.until((all) => all.some((r) => r.path === "/signed"))).filter((r) => r.path === "/signed");
    if (!request) throw new Error("no delivery");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-svc-hook-guid"]).toBe(hook.id);
    expect(request.headers["x-svc-hook-event"]).toBe("event.created");
    expect(Number(request.headers["x-svc-hook-timestamp"])).toBeGreaterThan(1_700_000_000);
    expect(verifySignature(request.body, request.headers["x-svc-hook-signature"] as string, hook.secret)).toBe(true);
    expect(verifyStandardWebhook(request.body, request.headers as Record<string, string>, hook.secret)).toBe(true);
    expect(request.json).toMatchObject({
      id: request.headers["webhook-id"],
      project: "web",
      culprit: "handler(app.js)",
      url: expect.stringMatching(/\/api\/0\/organizations\/acme\/issues\/\d+\/$/),
      triggering_rules: [],
      event: { event_id: eventId, level: "error", platform: "node", datetime: expect.stringMatching(/T\d\d:\d\d:\d\d\.\d{6}Z$/) },
    });
    expect((request.json.event as { tags: string[][] }).tags).toContainEqual(["browser", "Firefox"]);
  });

  it("sends nothing to hooks of other projects, to disabled hooks, or for unsubscribed events", async () => {
    const before = receiver.received.length;
    const alertOnly = await (await post(hooksPath(), { url: `${receiver.url}/alert-only`, events: ["event.alert"] })).json();
    const disabled = await (await post(hooksPath(), { url: `${receiver.url}/disabled`, events: ["event.created"] })).json();
    const updated = await fetch(`${hooksPath()}${disabled.id}/`, { method: "PUT", headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify({ isActive: false }) });
    expect((await updated.json()).status).toBe("disabled");
    await capture(errorEvent({ fingerprint: ["quiet"] }));
    await instance.faultline.worker.runDue("delivery.send");
    const paths = receiver.received.slice(before).map((r) => r.path);
    expect(paths).not.toContain("/alert-only");
    expect(paths).not.toContain("/disabled");
    void alertOnly;
  });

  it("updates and deletes hooks; deleting cancels pending deliveries; unknown ids are 404", async () => {
    const hook = await (await post(hooksPath(), { url: `${receiver.url}/gone`, events: ["event.created"] })).json();
    const renamed = await (await fetch(`${hooksPath()}${hook.id}/`, { method: "PUT", headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify({ url: `${receiver.url}/moved`, events: ["event.alert"] }) })).json();
    expect(renamed).toMatchObject({ url: `${receiver.url}/moved`, events: ["event.alert"] });
    expect((await fetch(`${hooksPath()}${hook.id}/`, { method: "DELETE", headers: bearer(token) })).status).toBe(204);
    expect((await fetch(`${hooksPath()}${hook.id}/`, { headers: bearer(token) })).status).toBe(404);
    expect((await fetch(`${hooksPath()}${"0".repeat(32)}/`, { headers: bearer(token) })).status).toBe(404);
    expect((await fetch(`${hooksPath()}not-a-guid/`, { headers: bearer(token) })).status).toBe(404);
  });
});
