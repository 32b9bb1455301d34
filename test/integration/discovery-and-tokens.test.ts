import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

describe("discovery endpoints and API tokens", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;

  beforeAll(async () => {
    instance = await createTestInstance();
    acme = await seedOrganization(instance.faultline, "acme");
    server = await serveFaultline(instance.faultline, "/faultline");
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const get = (path: string, token = acme.allScopesToken) =>
    fetch(`${server.url}/faultline${path}`, { headers: bearer(token) });

  it("GET organization returns its shape with features from its flags", async () => {
    await instance.faultline.api.organizations.update("acme", { samlConfigured: true, scimEnabled: true });
    const response = await get("/api/0/organizations/acme/");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: acme.organization.id,
      slug: "acme",
      name: "acme Inc",
      plan: "business",
      features: ["sso-saml2", "scim"],
      dateCreated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      // Sentry's required organization fields (#15), with its values where Faultline has no such setting.
      status: { id: "active", name: "active" },
      isEarlyAdopter: false,
      require2FA: false,
      avatar: { avatarType: "letter_avatar", avatarUuid: null, avatarUrl: null },
      links: { organizationUrl: `${server.url}/faultline`, regionUrl: `${server.url}/faultline` },
      hasAuthProvider: true,
      allowMemberInvite: true,
      allowMemberProjectCreation: true,
      allowSuperuserAccess: false,
      // Sentry's organization-level data scrubbing (the data-scrubbing plugin's): nothing forced yet.
      dataScrubber: false,
      dataScrubberDefaults: false,
      scrubIPAddresses: false,
      sensitiveFields: [],
      safeFields: [],
    });
  });

  it("lists projects (paginated) and gets one by slug or id", async () => {
    const list = await get("/api/0/organizations/acme/projects/", acme.orgBoundToken);
    expect(list.status).toBe(200);
    expect((await list.json()).map((p: { slug: string }) => p.slug)).toEqual(["web"]);
    expect(list.headers.get("link")).toContain(`${server.url}/faultline/api/0/organizations/acme/projects/?cursor=`);
    const bySlug = await get("/api/0/projects/acme/web/");
    const byId = await get(`/api/0/projects/acme/${acme.project.id}/`);
    expect(await bySlug.json()).toEqual(await byId.json());
    expect((await get("/api/0/projects/acme/nope/")).status).toBe(404);
  });

  it("lists DSN keys with a DSN carrying the request's origin and the mount prefix", async () => {
    const response = await get("/api/0/projects/acme/web/keys/");
    const [key] = await response.json();
    const host = new URL(server.url).host;
    expect(key).toMatchObject({ name: "Default", isActive: true, public: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(key.dsn.public).toBe(`http://${key.public}@${host}/faultline/${acme.project.id}`);
  });

  it("creates, lists and revokes the calling user's tokens; the plaintext is shown once", async () => {
    const created = await fetch(`${server.url}/faultline/api/0/api-tokens/`, {
      method: "POST",
      headers: { ...bearer(acme.allScopesToken), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "ci", scopes: ["event:read"], expiresAt: "2099-01-01T00:00:00Z" }),
    });
    expect(created.status).toBe(201);
    const token = await created.json();
    expect(token).toMatchObject({
      name: "ci",
      scopes: ["event:read"],
      expiresAt: "2099-01-01T00:00:00.000Z",
      token: expect.stringMatching(/^flu_/),
    });
    expect(token.tokenLastCharacters).toBe(token.token.slice(-4));

    const list = await (await get("/api/0/api-tokens/")).json();
    const listed = list.find((t: { id: string }) => t.id === token.id);
    expect(listed).toBeDefined();
    expect(listed.token).toBeUndefined();

    // the new token works, with its own scopes only
    expect((await get("/api/0/organizations/acme/", token.token)).status).toBe(403);

    const revoked = await fetch(`${server.url}/faultline/api/0/api-tokens/${token.id}/`, {
      method: "DELETE",
      headers: bearer(acme.allScopesToken),
    });
    expect(revoked.status).toBe(204);
    expect((await get("/api/0/api-tokens/", token.token)).status).toBe(401);
    const again = await fetch(`${server.url}/faultline/api/0/api-tokens/${token.id}/`, {
      method: "DELETE",
      headers: bearer(acme.allScopesToken),
    });
    expect(again.status).toBe(404);
  });

  it("refuses scopes beyond the caller's, and organization tokens on user endpoints", async () => {
    const tooMuch = await fetch(`${server.url}/faultline/api/0/api-tokens/`, {
      method: "POST",
      headers: { ...bearer(acme.orgReadToken), "Content-Type": "application/json" },
      body: JSON.stringify({ scopes: ["org:admin"] }),
    });
    expect(tooMuch.status).toBe(400);
    expect((await tooMuch.json()).errors.scopes).toEqual(["Requested scopes exceed yours: org:admin"]);
    const orgToken = await get("/api/0/api-tokens/", acme.orgBoundToken);
    expect(orgToken.status).toBe(403);
  });

  it("refuses expiry dates in the past, and SCIM tokens outside SCIM endpoints", async () => {
    const past = await fetch(`${server.url}/faultline/api/0/api-tokens/`, {
      method: "POST",
      headers: { ...bearer(acme.allScopesToken), "Content-Type": "application/json" },
      body: JSON.stringify({ scopes: ["event:read"], expiresAt: "2001-01-01T00:00:00Z" }),
    });
    expect(past.status).toBe(400);
    expect((await past.json()).errors.expiresAt).toEqual(["must be in the future"]);
    const scim = await instance.faultline.api.tokens.create({
      organization: "acme",
      kind: "scim",
      scopes: ["member:admin", "team:admin", "org:read"],
    });
    const response = await get("/api/0/organizations/acme/", scim.token);
    expect(response.status).toBe(403);
    expect((await response.json()).detail).toMatch(/^SCIM tokens only open SCIM endpoints/);
  });

  it("rejects an expired token with 401 Token expired", async () => {
    let now = new Date("2030-01-01T00:00:00Z");
    const clocked = await createTestInstance({ clock: { now: () => now }, announce: false });
    try {
      const seeded = await seedOrganization(clocked.faultline, "clocked");
      const { token } = await clocked.faultline.api.tokens.create({
        user: seeded.owner.id,
        scopes: ["org:read"],
        expiresAt: new Date("2030-01-02T00:00:00Z"),
      });
      const call = () =>
        clocked.faultline.handler(new Request("http://x/api/0/organizations/clocked/", { headers: bearer(token) }));
      expect((await call()).status).toBe(200);
      now = new Date("2030-01-03T00:00:00Z");
      const expired = await call();
      expect(expired.status).toBe(401);
      expect(await expired.json()).toEqual({ detail: "Token expired" });
    } finally {
      await clocked.close();
    }
  });

  it("limits a user token by the user's role, and hides organizations the user is not an active member of", async () => {
    const { faultline } = instance;
    const billing = await faultline.api.users.create({ username: "bill", email: "bill@acme.test" });
    await faultline.api.members.add({ organization: "acme", user: "bill", role: "billing" });
    const { token } = await faultline.api.tokens.create({ user: billing.id, scopes: ["org:read"] });
    expect((await get("/api/0/organizations/acme/", token)).status).toBe(403);
    const outsider = await faultline.api.users.create({ username: "outsider" });
    const outsiderToken = (await faultline.api.tokens.create({ user: outsider.id, scopes: ["org:read"] })).token;
    expect((await get("/api/0/organizations/acme/", outsiderToken)).status).toBe(404);
  });

  it("lets a host map its own session to a principal through authenticate()", async () => {
    const hosted = await createTestInstance({
      announce: false,
      authenticate: (request) =>
        request.headers.get("cookie") === "session=ada" ? { userId: hostedOwnerId, scopes: ["org:read"] } : null,
    });
    let hostedOwnerId = 0;
    try {
      const seeded = await seedOrganization(hosted.faultline, "hosted");
      hostedOwnerId = Number(seeded.owner.id);
      const withSession = await hosted.faultline.handler(
        new Request("http://x/api/0/organizations/hosted/", { headers: { cookie: "session=ada" } }),
      );
      expect(withSession.status).toBe(200);
      const fallsThrough = await hosted.faultline.handler(
        new Request("http://x/api/0/organizations/hosted/", { headers: bearer(seeded.orgReadToken) }),
      );
      expect(fallsThrough.status).toBe(200);
      const neither = await hosted.faultline.handler(new Request("http://x/api/0/organizations/hosted/"));
      expect(neither.status).toBe(401);
    } finally {
      await hosted.close();
    }
  });
});
