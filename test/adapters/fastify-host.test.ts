import { afterAll, beforeAll, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript example without type declarations
import { start } from "../../examples/fastify-host/server.mjs";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { sdkRoundTrip } from "./sdk.js";

let instance: TestInstance;
let host: { url: string; token: string; close(): Promise<void> };

beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false });
  host = await start({ port: 0, faultline: instance.faultline });
});
afterAll(async () => {
  await host?.close();
  await instance?.close();
});

it("examples/fastify-host: a real @sentry/node event under /faultline, listed through the prefix", async () => {
  await sdkRoundTrip({ origin: host.url, prefix: "/faultline", token: host.token, organization: "demo", project: "web" });
});

it("examples/fastify-host: the host's own routes still work and parse their JSON", async () => {
  expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ ok: true });
  const order = await fetch(`${host.url}/api/orders`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"sku":"A-1","qty":2}' });
  expect([order.status, await order.json()]).toEqual([201, { order: { sku: "A-1", qty: 2 } }]);
});
