import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { mount } from "hono/mount";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { listen, type RunningServer } from "../helpers/server.js";
import { sdkRoundTrip } from "./sdk.js";
import { type MountedTarget, requestSuite } from "./suite.js";

/**
 * Hono needs no adapter: `faultline.handler` is a fetch handler. These are the two mounts
 * docs/embedding-hono.md shows, served by @hono/node-server on a real port.
 */
let instance: TestInstance;
let seed: Awaited<ReturnType<typeof seedOrganization>>;
const servers: RunningServer[] = [];

beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false });
  seed = await seedOrganization(instance.faultline, "acme");
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await instance?.close();
});

async function serve(app: Hono): Promise<string> {
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
  servers.push(server);
  return server.url;
}

/** A host with its own JSON route, and Faultline mounted by `register` under `prefix`. */
function mounted(register: (app: Hono) => void, prefix: string): () => MountedTarget {
  let target: MountedTarget;
  beforeAll(async () => {
    const app = new Hono();
    app.post("/host/echo", async (c) => c.json({ parsed: await c.req.json<unknown>() }));
    register(app);
    target = {
      origin: await serve(app),
      prefix,
      token: seed.allScopesToken,
      organization: "acme",
      project: "web",
      digest: () => instance.faultline.worker.runDue("ingest.digest"),
    };
  });
  return () => target;
}

describe("Hono: app.all(prefix/*) calling faultline.handler", () => {
  const target = mounted(
    (app) => void app.all("/faultline/*", (c) => instance.faultline.handler(c.req.raw, { basePath: "/faultline" })),
    "/faultline",
  );
  requestSuite(target);

  it("takes a real @sentry/node event under the prefix and lists it through the prefix", async () => {
    await sdkRoundTrip(target());
  });

  it("leaves the host's own JSON route parsing its body", async () => {
    const echo = await fetch(`${target().origin}/host/echo`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"a":1}',
    });
    expect(await echo.json()).toEqual({ parsed: { a: 1 } });
  });
});

describe("Hono: mount() from hono/mount, in a sub-app at /a/b", () => {
  requestSuite(
    mounted((app) => {
      const api = new Hono();
      // replaceRequest: false keeps the prefix in the URL (DSNs and Link headers carry it);
      // the option handler replaces the (request, env, executionCtx) call with Faultline's options.
      api.all(
        "/b/*",
        mount(instance.faultline.handler, { replaceRequest: false, optionHandler: () => ({ basePath: "/a/b" }) }),
      );
      app.route("/a", api);
    }, "/a/b"),
    { uploads: false },
  );
});

describe("Hono: a middleware that read the body before Faultline", () => {
  const target = mounted((app) => {
    app.use("/faultline/*", async (c, next) => {
      if (c.req.method === "POST") await c.req.text();
      await next();
    });
    app.all("/faultline/*", (c) => instance.faultline.handler(c.req.raw, { basePath: "/faultline" }));
  }, "/faultline");

  it("answers a 500 that names the fix instead of failing on the used body", async () => {
    const key = (await instance.faultline.api.projects.keys("acme", "web"))[0]?.public;
    const response = await fetch(`${target().origin}/faultline/api/${seed.project.id}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body: "{}\n{}",
    });
    expect(response.status).toBe(500);
    expect(((await response.json()) as { detail: string }).detail).toMatch(
      /consumed before Faultline.*Mount Faultline ahead of it/,
    );
  });
});
