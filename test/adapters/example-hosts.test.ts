import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: plain JavaScript examples without type declarations
import { start as startExpressHost } from "../../examples/express-host/server.mjs";
// @ts-expect-error: plain JavaScript examples without type declarations
import { start as startFastifyHost } from "../../examples/fastify-host/server.mjs";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { sdkRoundTrip } from "./sdk.js";

type Host = { url: string; token: string; close(): Promise<void> };
type StartHost = (options: { port: number; faultline: TestInstance["faultline"] }) => Promise<Host>;

/** The Express and Fastify example hosts pass the same checks (examples/next-host is type-checked; the same Next.js checks run on the Next.js guide's built app, test/dist/next-host-checks.ts). */
describe.each([
  ["examples/express-host", startExpressHost as StartHost],
  ["examples/fastify-host", startFastifyHost as StartHost],
])("%s", (_name, start) => {
  let instance: TestInstance;
  let host: Host;

  beforeAll(async () => {
    instance = await createTestInstance({ announce: false, worker: false });
    host = await start({ port: 0, faultline: instance.faultline });
  });
  afterAll(async () => {
    await host?.close();
    await instance?.close();
  });

  it("takes a real @sentry/node event under /faultline and lists it through the prefix", async () => {
    const digest = () => instance.faultline.worker.runDue("ingest.digest");
    await sdkRoundTrip({
      origin: host.url,
      prefix: "/faultline",
      token: host.token,
      organization: "demo",
      project: "web",
      digest,
    });
  });

  it("leaves the host's own routes working and parsing their JSON", async () => {
    expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ ok: true });
    const order = await fetch(`${host.url}/api/orders`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"sku":"A-1","qty":2}',
    });
    expect([order.status, await order.json()]).toEqual([201, { order: { sku: "A-1", qty: 2 } }]);
  });
});
