import { createHmac } from "node:crypto";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript example without type declarations
import { createReceiver } from "../../examples/webhook-receiver/receiver.mjs";
import { SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { inProcess } from "../helpers/server.js";

/** What the example hands to `onEvent`. */
interface HandledEvent {
  id: string;
  type: string | undefined;
  payload: Record<string, unknown>;
}
/** One request as it reached the example receiver, and the status the example answered (0: none yet). */
interface Arrival {
  headers: IncomingHttpHeaders;
  body: Buffer;
  readonly status: number;
}
interface RunningExample {
  url: string;
  secret: string;
  events: HandledEvent[];
  arrivals: Arrival[];
}

const SENDER_AGENT = "faultline-webhooks/1";

/** A public address nothing listens on, for a destination before its receiver exists. */
const NOWHERE = "http://192.0.2.1/hooks";

/**
 * Runs the example receiver on a free port with `secret`, observing (without changing it) every
 * request that reaches it and the status it answered.
 */
async function startExample(secret: string, cleanups: Array<() => Promise<void>>): Promise<RunningExample> {
  const events: HandledEvent[] = [];
  const arrivals: Arrival[] = [];
  const server: Server = createReceiver({ secret, onEvent: (event: HandledEvent) => events.push(event) });
  // Runs before the example's own listener, so the arrival is complete before any answer is written
  // (waiting for the response's "finish" would race the sender reading that answer).
  server.prependListener("request", (req, res) => {
    const chunks: Buffer[] = [];
    const arrival = {
      headers: req.headers,
      body: Buffer.alloc(0),
      get status() {
        return res.headersSent ? res.statusCode : 0;
      },
    };
    arrivals.push(arrival);
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      arrival.body = Buffer.concat(chunks);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${port}/hooks`, secret, events, arrivals };
}

/** The webhook headers of a real delivery (no transport headers), to replay or tamper with. */
function webhookHeaders(arrival: Arrival): Record<string, string> {
  return Object.fromEntries(
    Object.entries(arrival.headers).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === "string" && /^(content-type|request-id|x-svc-hook-|svc-hook-|webhook-)/.test(entry[0]),
    ),
  );
}

/** Standard Webhooks signing, written independently of the library (key = the base64-decoded secret). */
function standardSignature(secret: string, id: string, timestamp: number, body: Buffer): string {
  return `v1,${createHmac("sha256", Buffer.from(secret, "base64")).update(`${id}.${timestamp}.`).update(body).digest("base64")}`;
}

/** Changes one character in the middle of a hex or base64 signature: same length and alphabet, wrong value. */
function tamper(signature: string): string {
  const at = Math.floor(signature.length / 2);
  return signature.slice(0, at) + (signature[at] === "0" ? "1" : "0") + signature.slice(at + 1);
}

async function post(url: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  const response = await fetch(url, { method: "POST", headers, body: new Uint8Array(body) });
  await response.arrayBuffer();
  return response.status;
}

describe("examples/webhook-receiver", () => {
  const cleanups: Array<() => Promise<void>> = [];
  let instance: TestInstance;
  let token: string;
  /** Receives the app webhooks (keyed with the app's client secret). */
  let appReceiver: RunningExample;
  /** Receives the service hook deliveries (keyed with the hook's own secret). */
  let hookReceiver: RunningExample;
  let hookId: string;

  const db = () => instance.faultline.container.resolve(tokens.Db);
  const deliveryRow = (type: "app" | "service_hook") =>
    db().selectFrom("deliveries").selectAll().where("destination_type", "=", type).executeTakeFirstOrThrow();
  const http = (method: string, path: string, body?: unknown) =>
    inProcess(instance.faultline, token)(method, path, body);
  /** Deliveries are sent only here (no background worker), so nothing races the assertions. */
  const sendDue = () => instance.faultline.worker.runDue("delivery.send");

  beforeAll(async () => {
    instance = await createTestInstance({ announce: false, worker: false, delivery: { allowPrivateNetworks: true } });
    cleanups.push(instance.close);
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const owner = await api.users.create({ username: "owner" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
    const project = await api.projects.create({ organization: "acme", slug: "web", features: ["servicehooks"] });

    // Each receiver needs the secret its destination's creation returns, so the destination first
    // points nowhere, then at the receiver listening on a port of its own (nothing is sent before).
    const app = await api.apps.create({
      organization: "acme",
      name: "Receiver",
      slug: "receiver",
      isInternal: true,
      webhookUrl: NOWHERE,
      events: ["error"],
    });
    appReceiver = await startExample(app.clientSecret, cleanups);
    await api.apps.update("receiver", { webhookUrl: appReceiver.url });

    const created = await http("POST", "/api/0/projects/acme/web/hooks/", { url: NOWHERE, events: ["event.created"] });
    expect(created.status).toBe(201);
    hookId = created.body.id as string;
    hookReceiver = await startExample(created.body.secret as string, cleanups);
    expect((await http("PUT", `/api/0/projects/acme/web/hooks/${hookId}/`, { url: hookReceiver.url })).status).toBe(
      200,
    );
    expect(hookReceiver.secret).not.toBe(appReceiver.secret);

    await captureFor(instance.faultline, { id: project.id, organizationId: org.id })(
      errorEvent({ fingerprint: ["example"] }),
    );
    await sendDue();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("accepts a real app webhook (Svc-Hook-Signature + Standard Webhooks, client secret) and handles it once", async () => {
    const row = await deliveryRow("app");
    expect(appReceiver.arrivals.map((a) => [a.headers["webhook-id"], a.headers["user-agent"], a.status])).toEqual([
      [row.id, SENDER_AGENT, 200],
    ]);
    const [arrival] = appReceiver.arrivals;
    expect(arrival?.headers["svc-hook-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(arrival?.headers["x-svc-hook-signature"]).toBeUndefined();
    expect(appReceiver.events).toEqual([
      { id: row.id, type: "error", payload: expect.objectContaining({ action: "created" }) },
    ]);
    expect(row).toMatchObject({ status: "delivered", attempts: 1, last_response_code: 200 });
  });

  it("accepts a real service hook delivery (X-Svc-Hook-* + Standard Webhooks, the hook's own secret) and handles it once", async () => {
    const row = await deliveryRow("service_hook");
    expect(hookReceiver.arrivals.map((a) => [a.headers["webhook-id"], a.headers["user-agent"], a.status])).toEqual([
      [row.id, SENDER_AGENT, 200],
    ]);
    const [arrival] = hookReceiver.arrivals;
    if (!arrival) throw new Error("no service hook delivery");
    expect(arrival.headers["x-svc-hook-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(arrival.headers["x-svc-hook-guid"]).toBe(hookId);
    expect(arrival.headers["svc-hook-signature"]).toBeUndefined();
    expect(hookReceiver.events).toEqual([
      { id: row.id, type: "event.created", payload: expect.objectContaining({ id: row.id, project: "web" }) },
    ]);
    expect(row).toMatchObject({ status: "delivered", attempts: 1, last_response_code: 200 });

    // Keyed with the hook's secret, not the app's: the app's receiver refuses the very same request.
    expect(await post(appReceiver.url, webhookHeaders(arrival), arrival.body)).toBe(401);
    expect(appReceiver.events).toHaveLength(1);
  });

  describe.each([
    ["app webhook", () => appReceiver, "svc-hook-signature"],
    ["service hook", () => hookReceiver, "x-svc-hook-signature"],
  ] as const)("%s: 401 unless both signatures are valid and fresh", (_kind, receiver, hexHeader) => {
    /** A genuine delivery's headers, re-signed by the test at `timestamp` (both schemes valid). */
    function genuine(timestamp = Math.floor(Date.now() / 1000)) {
      const { secret, arrivals } = receiver();
      const arrival = arrivals.find((a) => a.headers["user-agent"] === SENDER_AGENT);
      if (!arrival) throw new Error("no genuine delivery");
      const headers = webhookHeaders(arrival);
      const id = headers["webhook-id"] as string;
      const resigned: Record<string, string> = {
        ...headers,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": standardSignature(secret, id, timestamp, arrival.body),
      };
      return { body: arrival.body, headers: resigned };
    }

    it("accepts the control (both valid, fresh) as a duplicate: 200, not handled again", async () => {
      const { body, headers } = genuine();
      expect(await post(receiver().url, headers, body)).toBe(200);
      expect(receiver().events).toHaveLength(1);
    });

    it("refuses a valid Standard Webhooks signature with a tampered or missing hex signature", async () => {
      const { body, headers } = genuine();
      expect(await post(receiver().url, { ...headers, [hexHeader]: tamper(headers[hexHeader] as string) }, body)).toBe(
        401,
      );
      const { [hexHeader]: _dropped, ...withoutHex } = headers;
      expect(await post(receiver().url, withoutHex, body)).toBe(401);
      expect(receiver().events).toHaveLength(1);
    });

    it("refuses a valid hex signature with a tampered or missing Standard Webhooks signature", async () => {
      const { body, headers } = genuine();
      expect(
        await post(
          receiver().url,
          { ...headers, "webhook-signature": tamper(headers["webhook-signature"] as string) },
          body,
        ),
      ).toBe(401);
      const { "webhook-signature": _dropped, ...withoutStandard } = headers;
      expect(await post(receiver().url, withoutStandard, body)).toBe(401);
      expect(receiver().events).toHaveLength(1);
    });

    it("refuses a replayed old timestamp even though both signatures are correct for it", async () => {
      const { body, headers } = genuine(Math.floor(Date.now() / 1000) - 600);
      expect(await post(receiver().url, headers, body)).toBe(401);
      expect(receiver().events).toHaveLength(1);
    });

    it("refuses a tampered body, whose signatures no longer match", async () => {
      const { body, headers } = genuine();
      expect(await post(receiver().url, headers, Buffer.concat([body, Buffer.from(" ")]))).toBe(401);
      expect(receiver().events).toHaveLength(1);
    });
  });

  it.each([
    ["app", () => appReceiver],
    ["service_hook", () => hookReceiver],
  ] as const)(
    "a redelivery (%s) reaches the example, is acknowledged with 200 as a duplicate and not handled twice",
    async (type, receiver) => {
      const before = await deliveryRow(type);
      expect(before).toMatchObject({ status: "delivered", attempts: 1 });
      const fromSender = () => receiver().arrivals.filter((a) => a.headers["user-agent"] === SENDER_AGENT);
      expect(fromSender()).toHaveLength(1);

      const redelivered = await http("POST", `/api/0/organizations/acme/deliveries/${before.id}/redeliver/`);
      expect(redelivered.status).toBe(202);
      await sendDue();

      expect(fromSender().map((a) => [a.headers["webhook-id"], a.status])).toEqual([
        [before.id, 200],
        [before.id, 200],
      ]);
      expect(fromSender()[1]?.body.equals(fromSender()[0]?.body ?? Buffer.alloc(0))).toBe(true);
      expect(receiver().events.map((event) => event.id)).toEqual([before.id]);
      expect(await deliveryRow(type)).toMatchObject({ status: "delivered", attempts: 2, last_response_code: 200 });
    },
  );
});
