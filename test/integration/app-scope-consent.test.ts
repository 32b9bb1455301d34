import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

/** A public address literal: accepted without DNS, never contacted (no worker runs here). */
const HOOK_URL = "https://93.184.215.14/exfiltrate";
/** What the app owner adds to its public app: enough to read members, leak events and create apps. */
const ESCALATED = ["event:read", "member:read", "project:write", "org:admin"];

/**
 * #13 finding 8: the owner of a public app adds scopes with `PUT /api/0/svc-apps/{slug}/`; the
 * installation tokens of *other* organizations must not gain them until those organizations approve.
 */
describe("app scope changes and installation consent", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let initech: Awaited<ReturnType<typeof seedOrganization>>;
  let app: { slug: string; clientId: string; clientSecret: string };

  async function call(method: string, path: string, token?: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  const credentials = () => ({ client_id: app.clientId, client_secret: app.clientSecret });
  const exchangeCode = (uuid: string, code: string) =>
    call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, { grant_type: "authorization_code", code, ...credentials() });
  const refresh = (uuid: string, refreshToken: string) =>
    call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, { grant_type: "refresh_token", refresh_token: refreshToken, ...credentials() });

  /** What the escalated scopes would open in `org`: its SCIM users, a service hook, a new app. */
  const reach = (org: string, token: string) =>
    Promise.all([
      call("GET", `/api/0/organizations/${org}/scim/v2/Users`, token).then((r) => r.status),
      call("POST", `/api/0/projects/${org}/hooked/hooks/`, token, { url: HOOK_URL, events: ["event.created"] }).then((r) => r.status),
      call("POST", "/api/0/svc-apps/", token, { organization: org, name: "Planted" }).then((r) => r.status),
    ]);

  /** An organization whose SCIM users and service hooks an escalated token could reach. */
  async function victim(slug: string) {
    const seeded = await seedOrganization(instance.faultline, slug);
    await instance.faultline.api.organizations.update(slug, { samlConfigured: true });
    await instance.faultline.api.scim.enable(slug);
    await instance.faultline.api.projects.create({ organization: slug, slug: "hooked", features: ["servicehooks"] });
    return seeded;
  }

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    globex = await seedOrganization(instance.faultline, "globex");
    acme = await victim("acme");
    initech = await victim("initech");
    app = await instance.faultline.api.apps.create({ organization: "globex", name: "Reach", slug: "reach", scopes: ["event:read"] });
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("adding scopes to a public app widens no other organization's tokens: existing, refreshed or from an unused code", async () => {
    const inAcme = (await call("POST", "/api/0/organizations/acme/svc-app-installations/", acme.allScopesToken, { slug: "reach" })).body;
    const first = (await exchangeCode(inAcme.uuid, inAcme.code)).body;
    expect(first.scopes).toEqual(["event:read"]);
    // initech installs but the app has not used its grant code yet.
    const inInitech = (await call("POST", "/api/0/organizations/initech/svc-app-installations/", initech.allScopesToken, { slug: "reach" })).body;
    expect(await reach("acme", first.token)).toEqual([403, 403, 403]);

    expect((await call("PUT", "/api/0/svc-apps/reach/", globex.allScopesToken, { scopes: ESCALATED })).status).toBe(200);

    // The token acme's installation already holds.
    expect(await reach("acme", first.token)).toEqual([403, 403, 403]);
    expect((await call("GET", "/api/0/organizations/acme/issues/", first.token)).status).toBe(200);
    // A refreshed token.
    const refreshed = await refresh(inAcme.uuid, first.refreshToken);
    expect(refreshed.status).toBe(201);
    expect(refreshed.body.scopes).toEqual(["event:read"]);
    expect(await reach("acme", refreshed.body.token)).toEqual([403, 403, 403]);
    // A token bought with a grant code issued before the change.
    const fresh = await exchangeCode(inInitech.uuid, inInitech.code);
    expect(fresh.status).toBe(201);
    expect(fresh.body.scopes).toEqual(["event:read"]);
    expect(await reach("initech", fresh.body.token)).toEqual([403, 403, 403]);
  });
});
