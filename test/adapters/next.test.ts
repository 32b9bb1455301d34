import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getOrCreateFaultline, toNextJsHandler } from "../../adapters/next/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";

let instance: TestInstance;
let seed: Awaited<ReturnType<typeof seedOrganization>>;
beforeAll(async () => {
  instance = await createTestInstance({ announce: false, worker: false });
  seed = await seedOrganization(instance.faultline, "acme");
});
afterAll(() => instance?.close());

describe("faultline/next", () => {
  it("exports every method for the catch-all and routes from request.url under the mount prefix", async () => {
    const handlers = toNextJsHandler(instance.faultline);
    expect(Object.keys(handlers).sort()).toEqual(["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]);
    const auth = { Authorization: `Bearer ${seed.allScopesToken}` };
    const ok = await handlers.GET(
      new Request("http://app.test/api/faultline/api/0/organizations/acme/", { headers: auth }),
    );
    expect([ok.status, ((await ok.json()) as { slug: string }).slug]).toEqual([200, "acme"]);
    const outside = await handlers.GET(
      new Request("http://app.test/elsewhere/api/0/organizations/acme/", { headers: auth }),
    );
    expect(outside.status).toBe(404);
    const custom = toNextJsHandler(instance.faultline, { basePath: "/errors" });
    expect(
      (await custom.GET(new Request("http://app.test/errors/api/0/organizations/acme/", { headers: auth }))).status,
    ).toBe(200);
  });

  it("builds Link URLs and DSNs from the origin the client used (X-Forwarded-Host), not Next's own hostname", async () => {
    const { GET } = toNextJsHandler(instance.faultline);
    const headers = {
      Authorization: `Bearer ${seed.allScopesToken}`,
      "X-Forwarded-Host": "errors.example.com",
      "X-Forwarded-Proto": "https",
    };
    const keys = await GET(
      new Request("http://localhost:3000/api/faultline/api/0/projects/acme/web/keys/", { headers }),
    );
    const [key] = (await keys.json()) as Array<{ dsn: { public: string } }>;
    expect(key?.dsn.public).toMatch(/^https:\/\/[0-9a-f]{32}@errors\.example\.com\/api\/faultline\/\d+$/);
  });

  it("accepts a lazy factory, called per request and never at import", async () => {
    const factory = vi.fn(() => instance.faultline);
    const { POST } = toNextJsHandler(factory);
    expect(factory).not.toHaveBeenCalled();
    const response = await POST(
      new Request("http://app.test/api/faultline/api/0/api-tokens/", { method: "POST", body: "{}" }),
    );
    expect(response.status).toBe(401);
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it("getOrCreateFaultline keeps one instance per key on globalThis, across module reloads", async () => {
    const factory = vi.fn(() => ({ handler: async () => new Response(null) }));
    const first = getOrCreateFaultline("test-key", factory);
    vi.resetModules();
    const reloaded = await import("../../adapters/next/index.js"); // a fresh evaluation of the module
    expect(reloaded.getOrCreateFaultline).not.toBe(getOrCreateFaultline);
    expect(reloaded.getOrCreateFaultline("test-key", factory)).toBe(first);
    expect(getOrCreateFaultline("other-key", factory)).not.toBe(first);
    expect(factory).toHaveBeenCalledTimes(2);
  });
});
