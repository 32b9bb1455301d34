import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultlineFastify, toFastifyPlugin } from "../../adapters/fastify/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { envelope, type MountedTarget, requestSuite } from "./suite.js";

let instance: TestInstance;
let seed: Awaited<ReturnType<typeof seedOrganization>>;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false });
  seed = await seedOrganization(instance.faultline, "acme");
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await instance?.close();
});

/** A host with its own JSON routes registered before and after Faultline. */
function hostApp(register: (app: FastifyInstance) => void): FastifyInstance {
  const app = Fastify();
  apps.push(app);
  app.post("/before", async (request) => ({ parsed: request.body }));
  register(app);
  app.post("/after", async (request) => ({ parsed: request.body }));
  return app;
}

describe("Fastify: real listen under /faultline", () => {
  let target: MountedTarget;
  beforeAll(async () => {
    const app = hostApp((host) => void host.register(toFastifyPlugin(instance.faultline), { prefix: "/faultline" }));
    const origin = await app.listen({ port: 0, host: "127.0.0.1" });
    target = {
      origin,
      prefix: "/faultline",
      token: seed.allScopesToken,
      organization: "acme",
      project: "web",
      digest: () => instance.faultline.worker.runDue("ingest.digest"),
    };
  });
  requestSuite(() => target);
});

describe("Fastify: real listen under /a/b (nested prefixes)", () => {
  let target: MountedTarget;
  beforeAll(async () => {
    const app = hostApp(
      (host) =>
        void host.register(
          async (child) => void child.register(toFastifyPlugin(instance.faultline), { prefix: "/b" }),
          { prefix: "/a" },
        ),
    );
    const origin = await app.listen({ port: 0, host: "127.0.0.1" });
    target = {
      origin,
      prefix: "/a/b",
      token: seed.allScopesToken,
      organization: "acme",
      project: "web",
      digest: () => instance.faultline.worker.runDue("ingest.digest"),
    };
  });
  requestSuite(() => target, { uploads: false });
});

describe("Fastify: encapsulation (inject)", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = hostApp((host) => void host.register(toFastifyPlugin(instance.faultline), { prefix: "/faultline" }));
    await app.ready();
  });

  it("honours the prefix: Faultline answers under it and nowhere else", async () => {
    const inside = await app.inject({
      method: "GET",
      url: "/faultline/api/0/organizations/acme/",
      headers: { authorization: `Bearer ${seed.allScopesToken}` },
    });
    expect([inside.statusCode, inside.json().slug]).toEqual([200, "acme"]);
    const outside = await app.inject({
      method: "GET",
      url: "/api/0/organizations/acme/",
      headers: { authorization: `Bearer ${seed.allScopesToken}` },
    });
    expect([outside.statusCode, outside.json().code]).toEqual([404, undefined]);
    expect(outside.json()).toMatchObject({ message: "Route GET:/api/0/organizations/acme/ not found" });
  });

  it("does not leak its Buffer parser: host routes before and after still get parsed JSON, and other types are still refused", async () => {
    for (const path of ["/before", "/after"]) {
      const json = await app.inject({
        method: "POST",
        url: path,
        headers: { "content-type": "application/json" },
        payload: '{"a":1}',
      });
      expect([json.statusCode, json.json()]).toEqual([200, { parsed: { a: 1 } }]);
      const other = await app.inject({
        method: "POST",
        url: path,
        headers: { "content-type": "application/x-sentry-envelope" },
        payload: "x",
      });
      expect(other.statusCode).toBe(415);
    }
  });

  it("hands Faultline the exact bytes: a gzipped envelope, one with a JSON content type, and a gzipped JSON store event", async () => {
    const key = (await instance.faultline.api.projects.keys("acme", "web"))[0]?.public;
    const url = `/faultline/api/${seed.project.id}/envelope/?sentry_key=${key}`;
    const gzipped = envelope("fastify gzip");
    const first = await app.inject({
      method: "POST",
      url,
      headers: { "content-encoding": "gzip" },
      payload: gzipSync(gzipped.body),
    });
    expect([first.statusCode, first.json()]).toEqual([200, { id: gzipped.eventId }]);
    const typed = envelope("fastify typed");
    const second = await app.inject({
      method: "POST",
      url,
      headers: { "content-type": "application/json" },
      payload: typed.body,
    });
    expect([second.statusCode, second.json()]).toEqual([200, { id: typed.eventId }]);
    const stored = { event_id: randomUUID().replaceAll("-", ""), message: "fastify store" };
    const headers = { "content-type": "application/json", "content-encoding": "gzip" };
    const third = await app.inject({
      method: "POST",
      url: url.replace("/envelope/", "/store/"),
      headers,
      payload: gzipSync(JSON.stringify(stored)),
    });
    expect([third.statusCode, third.json()]).toEqual([200, { id: stored.event_id }]);
  });

  it("keeps Faultline's error shape and headers (401 with WWW-Authenticate)", async () => {
    const response = await app.inject({ method: "GET", url: "/faultline/api/0/organizations/acme/" });
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="api"');
    expect(response.json()).toEqual({ detail: "Authentication credentials were not provided." });
  });
});

describe("Fastify: a host hook that parsed the body before Faultline", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = hostApp((host) => {
      // A host-wide hook turning JSON bytes into a value: Faultline's Buffer is gone by its handler.
      host.addHook("preValidation", async (request) => {
        if (Buffer.isBuffer(request.body) && String(request.headers["content-type"]).startsWith("application/json"))
          request.body = JSON.parse(request.body.toString()) as unknown;
      });
      void host.register(toFastifyPlugin(instance.faultline), { prefix: "/faultline" });
    });
    await app.ready();
  });

  it("serves JSON routes from the parsed value and answers ingest with a 500 naming the fix, never hanging", async () => {
    const headers = { authorization: `Bearer ${seed.allScopesToken}`, "content-type": "application/json" };
    const created = await app.inject({
      method: "POST",
      url: "/faultline/api/0/api-tokens/",
      headers,
      payload: { name: "parsed by hook", scopes: ["org:read"] },
    });
    expect([created.statusCode, created.json().name, created.json().scopes]).toEqual([
      201,
      "parsed by hook",
      ["org:read"],
    ]);
    const key = (await instance.faultline.api.projects.keys("acme", "web"))[0]?.public;
    const store = await app.inject({
      method: "POST",
      url: `/faultline/api/${seed.project.id}/store/?sentry_key=${key}`,
      headers,
      payload: { message: "hooked" },
    });
    expect(store.statusCode).toBe(500);
    expect(store.json().detail).toMatch(/consumed before Faultline.*toFastifyPlugin\(faultline\)/);
  });
});

describe("Fastify: the deprecated faultlineFastify plugin", () => {
  it("still serves under its prefix with the instance in register's options", async () => {
    const app = hostApp(
      (host) => void host.register(faultlineFastify, { prefix: "/old", faultline: instance.faultline }),
    );
    const response = await app.inject({
      method: "GET",
      url: "/old/api/0/organizations/acme/",
      headers: { authorization: `Bearer ${seed.allScopesToken}` },
    });
    expect([response.statusCode, response.json().slug]).toEqual([200, "acme"]);
  });
});
