import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { verifySignature } from "../../src/verify.js";
import { errorEvent } from "../helpers/events.js";
import { type ReceivedRequest, startReceiver } from "../helpers/receiver.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/**
 * Issue #15: an app may ask for Sentry's webhook header names (`Sentry-Hook-Resource`,
 * `-Timestamp`, `-Signature`) beside the `Svc-Hook-*` ones, set through the apps API (under
 * Sentry's own path word too). A real receiver checks the signature the way Sentry's docs show
 * (HMAC-SHA256 of the raw body with the client secret, hex) and with `faultline/verify`.
 */

/** Sentry's documented receiver check, written independently of Faultline's verifier. */
function sentryStyleVerify(body: string, signature: string, secret: string): boolean {
  const expected = createHmac("sha256", secret).update(body, "utf8").digest("hex");
  return signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

describe("Sentry-Hook-* webhook headers, opt-in per app", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let app: { slug: string; clientSecret: string };
  let dsnKey: string;
  let projectId: number;
  let sent = 0;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...bearer(token), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Sends an event with a new message (a new issue: issue.created and error.created) and returns the webhooks it caused. */
  async function webhooksOfNewEvent(): Promise<ReceivedRequest[]> {
    const before = receiver.received.length;
    const eventId = (++sent).toString(16).padStart(32, "0");
    const event = {
      ...errorEvent({ exception: { values: [{ type: "Error", value: `failure ${sent}` }] } }),
      event_id: eventId,
    };
    const envelope = [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(event)].join("\n");
    expect(
      (await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${dsnKey}`, { method: "POST", body: envelope }))
        .status,
    ).toBe(200);
    await instance.faultline.worker.runDue("ingest.digest");
    await instance.faultline.worker.runDue("delivery.send");
    await receiver.until((requests) => requests.length >= before + 2);
    return receiver.received.slice(before);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    instance = await createTestInstance({ announce: false, worker: false, delivery: { allowPrivateNetworks: true } });
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "acme" });
    const owner = await api.users.create({ username: "ada", name: "Ada" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    projectId = Number(project.id);
    dsnKey = project.keys[0]?.public as string;
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
    server = await serveFaultline(instance.faultline);
    const created = await call("POST", "/api/0/sentry-apps/", {
      organization: "acme",
      name: "Tracker",
      slug: "tracker",
      isInternal: true,
      webhookUrl: `${receiver.url}/hook`,
      events: ["issue", "error"],
      scopes: ["event:read"],
    });
    expect(created.status).toBe(201);
    expect(created.body.sentryHookHeaders).toBe(false);
    app = created.body as unknown as { slug: string; clientSecret: string };
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
    await receiver?.close();
  });

  it("sends only the Svc-Hook-* names by default", async () => {
    for (const request of await webhooksOfNewEvent()) {
      expect(request.headers["svc-hook-signature"]).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.keys(request.headers).filter((name) => name.startsWith("sentry-hook-"))).toEqual([]);
    }
  });

  it("adds Sentry-Hook-Resource, -Timestamp and -Signature once the app opts in through the apps API", async () => {
    const updated = await call("PUT", `/api/0/sentry-apps/${app.slug}/`, { sentryHookHeaders: true });
    expect(updated.status).toBe(200);
    expect(updated.body.sentryHookHeaders).toBe(true);
    expect((await call("GET", `/api/0/svc-apps/${app.slug}/`)).body.sentryHookHeaders).toBe(true);
    expect((await call("PUT", `/api/0/sentry-apps/${app.slug}/`, { sentryHookHeaders: "yes" })).status).toBe(400);

    const requests = await webhooksOfNewEvent();
    expect(requests.map((request) => request.headers["sentry-hook-resource"]).sort()).toEqual(["error", "issue"]);
    for (const request of requests) {
      const headers = request.headers as Record<string, string>;
      expect(headers["sentry-hook-resource"]).toBe(headers["svc-hook-resource"]);
      expect(headers["sentry-hook-timestamp"]).toMatch(/^\d{10}$/);
      expect(Math.abs(Number(headers["sentry-hook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      const signature = headers["sentry-hook-signature"] as string;
      expect(sentryStyleVerify(request.body, signature, app.clientSecret)).toBe(true);
      expect(verifySignature(Buffer.from(request.body), signature, app.clientSecret)).toBe(true);
      expect(sentryStyleVerify(`${request.body} `, signature, app.clientSecret)).toBe(false);
      expect(sentryStyleVerify(request.body, signature, "another secret")).toBe(false);
      // The Svc-Hook-* names are still there, for receivers that use them.
      expect(headers["svc-hook-signature"]).toBe(signature);
    }
  });

  it("stops again when the app opts out", async () => {
    expect(
      (await call("PUT", `/api/0/svc-apps/${app.slug}/`, { sentryHookHeaders: false })).body.sentryHookHeaders,
    ).toBe(false);
    for (const request of await webhooksOfNewEvent()) expect(request.headers["sentry-hook-signature"]).toBeUndefined();
  });
});
