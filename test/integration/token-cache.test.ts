import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, type Faultline, type FaultlineApi, SCOPES, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { bearer, httpAnswerCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

const TTL_MS = 5000;

/**
 * The token cache (src/auth/token-cache.ts) and its revocation latency, as docs/authentication.md
 * states it: a change made through this instance applies to the next request; one made by
 * another process (here a second instance on the same schema, or SQL) within the TTL. Time is
 * the instances' clock, moved by the test.
 */
describe("token cache: revocation latency", () => {
  let now = new Date("2026-03-01T12:00:00.000Z");
  const clock = { now: () => now };
  const advance = (ms: number) => (now = new Date(now.getTime() + ms));
  let instance: TestInstance;
  /** Another process on the same database: its changes reach `instance` only through the database. */
  let other: Faultline<FaultlineApi>;
  let server: RunningServer;
  let ownerId: string;
  const call = httpAnswerCaller(() => server.url);

  beforeAll(async () => {
    instance = await createTestInstance({ clock, worker: false, tokenCache: { ttlMs: TTL_MS, maxEntries: 100 } });
    other = createFaultline({
      database: instance.database,
      schema: instance.schema,
      clock,
      worker: false,
      logger: silentLogger,
    });
    await other.ready();
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "acme", plan: "business" });
    ownerId = (await api.users.create({ username: "ada" })).id;
    await api.members.add({ organization: "acme", user: ownerId, role: "owner" });
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await other?.close();
    await instance?.close();
  });

  const status = async (token: string, path = "/api/0/organizations/acme/") =>
    (await fetch(`${server.url}${path}`, { headers: bearer(token) })).status;
  const userToken = async () =>
    (await instance.faultline.api.tokens.create({ user: ownerId, scopes: [...SCOPES] })).token;

  it("a token revoked through this instance fails on the next request, though it was cached", async () => {
    const token = await userToken();
    expect(await status(token)).toBe(200);
    const [listed] = (await call("GET", "/api/0/api-tokens/", token)).body as Array<{ id: string }>;
    const revoked = await fetch(`${server.url}/api/0/api-tokens/${listed?.id}/`, {
      method: "DELETE",
      headers: bearer(token),
    });
    expect(revoked.status).toBe(204);
    expect(await status(token)).toBe(401);
  });

  it("a token revoked by another process keeps working at most the TTL here, then fails", async () => {
    const token = await userToken();
    expect(await status(token)).toBe(200);
    const db = other.container.resolve(tokens.Db);
    await db.deleteFrom("api_tokens").where("user_id", "=", Number(ownerId)).execute();
    expect(await status(token)).toBe(200); // the stated latency: still trusted from the cache
    advance(TTL_MS - 1);
    expect(await status(token)).toBe(200);
    advance(1);
    expect(await status(token)).toBe(401);
  });

  it("an expired token never authenticates, even while its cache entry is fresh", async () => {
    const { token } = await instance.faultline.api.tokens.create({
      user: ownerId,
      scopes: [...SCOPES],
      expiresAt: new Date(now.getTime() + 1000),
    });
    expect(await status(token)).toBe(200);
    advance(1000);
    expect(await status(token)).toBe(401);
  });

  it("a member removed or deactivated (as SCIM does) loses access at once: membership is never cached", async () => {
    const { api } = instance.faultline;
    const bob = await api.users.create({ username: "bob" });
    await api.members.add({ organization: "acme", user: bob.id, role: "member" });
    const { token } = await api.tokens.create({ user: bob.id, scopes: [...SCOPES] });
    expect(await status(token)).toBe(200);
    const db = other.container.resolve(tokens.Db);
    // What SCIM deactivation writes (scim/repository.ts), from the other process.
    await db.updateTable("organization_members").set({ active: false }).where("user_id", "=", Number(bob.id)).execute();
    expect(await status(token)).toBe(404);
    await db
      .updateTable("organization_members")
      .set({ active: true, role: "billing" })
      .where("user_id", "=", Number(bob.id))
      .execute();
    expect(await status(token)).toBe(403); // a role change applies at once too: billing holds no org:read
    await db.deleteFrom("organization_members").where("user_id", "=", Number(bob.id)).execute();
    expect(await status(token)).toBe(404);
  });

  it("turning SCIM off revokes its cached token at once", async () => {
    const { api } = instance.faultline;
    await api.organizations.update("acme", { samlConfigured: true });
    const scim = (await api.scim.enable("acme")).token;
    const scimUsers = "/api/0/organizations/acme/scim/v2/Users";
    expect(await status(scim, scimUsers)).toBe(200);
    const rotated = (await api.scim.rotateToken("acme")).token;
    expect(await status(scim, scimUsers)).toBe(401);
    expect(await status(rotated, scimUsers)).toBe(200);
    await api.scim.disable("acme");
    expect(await status(rotated, scimUsers)).toBe(401);
  });

  describe("installation tokens", () => {
    let uuid: string;
    let token: string;
    let refreshToken: string;
    let credentials: { client_id: string; client_secret: string };
    const installations = "/api/0/organizations/acme/svc-app-installations/";

    beforeAll(async () => {
      const app = await instance.faultline.api.apps.create({
        organization: "acme",
        name: "Bot",
        slug: "bot",
        isInternal: true,
        scopes: ["event:read", "org:read"],
      });
      const installation = app.installation as { uuid: string; code: string };
      uuid = installation.uuid;
      credentials = { client_id: app.clientId, client_secret: app.clientSecret };
      const exchanged = await call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, {
        grant_type: "authorization_code",
        code: installation.code,
        ...credentials,
      });
      ({ token, refreshToken } = exchanged.body as { token: string; refreshToken: string });
    });

    it("narrowing the app's scopes through this instance applies to the cached token at once", async () => {
      expect(await status(token, installations)).toBe(200);
      await instance.faultline.api.apps.update("bot", { scopes: ["event:read"] });
      expect(await status(token, installations)).toBe(403);
    });

    it("widening and approving through another process applies within the TTL", async () => {
      await other.api.apps.update("bot", { scopes: ["event:read", "org:read"] });
      await other.api.installations.approveScopes(uuid, { scopes: ["org:read"] });
      expect(await status(token, installations)).toBe(403); // cached, narrowed scopes
      advance(TTL_MS);
      expect(await status(token, installations)).toBe(200);
    });

    it("a refreshed token replaces the old one at once", async () => {
      const refreshed = await call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        ...credentials,
      });
      expect(refreshed.status).toBe(201);
      expect(await status(token, installations)).toBe(401);
      token = (refreshed.body as { token: string }).token;
      expect(await status(token, installations)).toBe(200);
    });

    it("uninstalling revokes the cached token at once", async () => {
      await instance.faultline.api.installations.uninstall(uuid);
      expect(await status(token, installations)).toBe(401);
    });
  });

  it("with ttlMs 0 nothing is cached: a revocation elsewhere applies to the next request", async () => {
    const uncached = createFaultline({
      database: instance.database,
      schema: instance.schema,
      clock,
      worker: false,
      logger: silentLogger,
      tokenCache: { ttlMs: 0 },
    });
    try {
      const token = await userToken();
      const ask = async () =>
        (await uncached.handler(new Request("http://faultline/api/0/organizations/acme/", { headers: bearer(token) })))
          .status;
      expect(await ask()).toBe(200);
      await instance.faultline.container
        .resolve(tokens.Db)
        .deleteFrom("api_tokens")
        .where("user_id", "=", Number(ownerId))
        .execute();
      expect(await ask()).toBe(401);
    } finally {
      await uncached.close();
    }
  });
});
