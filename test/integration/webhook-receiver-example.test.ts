import { type AddressInfo, createServer } from "node:net";
import { afterAll, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript example without type declarations
import { createReceiver } from "../../examples/webhook-receiver/receiver.mjs";
import { createTestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

it("the example receiver verifies real deliveries, rejects forgeries with 401 and de-duplicates retries", async () => {
  const instance = await createTestInstance({ announce: false, delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 } });
  cleanups.push(instance.close);
  const { api } = instance.faultline;
  const org = await api.organizations.create({ slug: "acme" });
  const project = await api.projects.create({ organization: "acme", slug: "web" });
  const events: Array<{ id: string; type: string }> = [];
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/hooks`;
  const app = await api.apps.create({ organization: "acme", name: "Receiver", slug: "receiver", isInternal: true, webhookUrl: url, events: ["error"] });
  const server = createReceiver({ secret: app.clientSecret, onEvent: (event: { id: string; type: string }) => events.push(event) });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  await captureFor(instance.faultline, { id: project.id, organizationId: org.id })(errorEvent({ fingerprint: ["example"] }));
  const deadline = Date.now() + 5000;
  while (events.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(events).toHaveLength(1);
  expect(events[0]?.type).toBe("error");

  const forged = await fetch(url, { method: "POST", body: "{}", headers: { "svc-hook-signature": "0".repeat(64), "webhook-id": "x", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" } });
  expect(forged.status).toBe(401);

  // Redelivering the same delivery (same id, fresh signature) is acknowledged but handled once.
  const db = instance.faultline.container.resolve((await import("../../src/index.js")).tokens.Db);
  await db.updateTable("deliveries").set({ status: "pending", next_attempt_at: new Date() }).execute();
  await instance.faultline.worker.runDue("delivery.send");
  expect(events).toHaveLength(1);
});

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) => probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  }));
}
