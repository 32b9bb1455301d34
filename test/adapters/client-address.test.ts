import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express/index.js";
import { toFastifyPlugin } from "../../adapters/fastify/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, listen, type RunningServer } from "../helpers/server.js";

/**
 * Issue #15: the adapters hand ingest the sender's address under the framework's own
 * trusted-proxy setting, so `{{auto}}` becomes the client behind a trusted proxy and the peer
 * otherwise (an untrusted `X-Forwarded-For` is the client's own claim).
 */
describe("adapters: the sender's address for {{auto}} follows the framework's trusted-proxy setting", () => {
  let instance: TestInstance;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  const servers: RunningServer[] = [];
  const fastifies: FastifyInstance[] = [];

  beforeAll(async () => {
    instance = await createTestInstance({ announce: false, worker: false });
    acme = await seedOrganization(instance.faultline, "acme");
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const app of fastifies) await app.close();
    await instance?.close();
  });

  /** Sends `{{auto}}` through `origin` with a forged X-Forwarded-For; the stored address. */
  async function storedAddress(origin: string): Promise<unknown> {
    const eventId = randomUUID().replaceAll("-", "");
    const dsnKey = acme.project.keys[0]?.public as string;
    const body = [
      JSON.stringify({ event_id: eventId }),
      '{"type":"event"}',
      JSON.stringify({ ...errorEvent(), event_id: eventId, user: { ip_address: "{{auto}}" } }),
    ].join("\n");
    const response = await fetch(`${origin}/api/${acme.project.id}/envelope/?sentry_key=${dsnKey}`, {
      method: "POST",
      headers: { "X-Forwarded-For": "203.0.113.9" },
      body,
    });
    expect(response.status).toBe(200);
    await instance.faultline.worker.runDue("ingest.digest");
    const raw = await fetch(`${origin}/api/0/projects/acme/web/events/${eventId}/json/`, {
      headers: bearer(acme.allScopesToken),
    });
    return ((await raw.json()) as { user?: { ip_address?: unknown } }).user?.ip_address;
  }

  async function expressHost(trustProxy: string | false): Promise<string> {
    const app = express();
    app.set("trust proxy", trustProxy);
    app.use(toExpressHandler(instance.faultline));
    const server = await listen(createServer(app));
    servers.push(server);
    return server.url;
  }

  async function fastifyHost(trustProxy: boolean): Promise<string> {
    const app = Fastify({ trustProxy });
    fastifies.push(app);
    await app.register(toFastifyPlugin(instance.faultline));
    return app.listen({ port: 0, host: "127.0.0.1" });
  }

  it("Express: req.ip under `trust proxy`", async () => {
    expect(await storedAddress(await expressHost(false))).toBe("127.0.0.1");
    expect(await storedAddress(await expressHost("loopback"))).toBe("203.0.113.9");
  });

  it("Fastify: request.ip under `trustProxy`", async () => {
    expect(await storedAddress(await fastifyHost(false))).toBe("127.0.0.1");
    expect(await storedAddress(await fastifyHost(true))).toBe("203.0.113.9");
  });
});
