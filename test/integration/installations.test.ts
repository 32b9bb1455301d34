import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

describe("GET /api/0/organizations/{org}/svc-app-installations/", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let other: Awaited<ReturnType<typeof seedOrganization>>;
  const path = (org: string) => `/api/0/organizations/${org}/svc-app-installations/`;

  beforeAll(async () => {
    instance = await createTestInstance();
    const { faultline } = instance;
    acme = await seedOrganization(faultline, "acme");
    other = await seedOrganization(faultline, "globex");
    await faultline.api.apps.create({
      organization: "acme",
      name: "Internal Tool",
      slug: "internal-tool",
      isInternal: true,
      scopes: ["event:read"],
    });
    await faultline.api.apps.create({
      organization: "globex",
      name: "Ticket Sync",
      slug: "ticket-sync",
      scopes: ["event:write"],
    });
    await faultline.api.installations.install({ organization: "acme", app: "ticket-sync" });
    server = await serveFaultline(faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("lists installations with the seed's fields, newest first, with a Link header", async () => {
    const response = await fetch(`${server.url}${path("acme")}`, { headers: bearer(acme.orgReadToken) });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toHaveLength(2);
    expect(body[0]).toEqual({
      app: { uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), slug: "ticket-sync", name: "Ticket Sync" },
      organization: { slug: "acme" },
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: "installed",
      scopes: ["event:write"],
      pendingScopes: [],
    });
    expect(body[1].app.slug).toBe("internal-tool");
    const link = response.headers.get("link") ?? "";
    expect(link).toMatch(
      /^<http:\/\/127\.0\.0\.1:\d+\/api\/0\/organizations\/acme\/svc-app-installations\/\?cursor=[^>]+>; rel="previous"; results="false"; cursor="[^"]+", </,
    );
    expect(link).toMatch(/rel="next"; results="false"; cursor="\d+:\d+:0"$/);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f]{32}$/);
  });

  it("accepts the organization's numeric id as well as its slug", async () => {
    const response = await fetch(`${server.url}${path(acme.organization.id)}`, { headers: bearer(acme.orgReadToken) });
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveLength(2);
  });

  it("walks pages with per_page through the next cursor", async () => {
    const first = await fetch(`${server.url}${path("acme")}?per_page=1`, { headers: bearer(acme.orgReadToken) });
    expect(first.headers.get("x-per-page")).toBe("1");
    const [firstItem] = await first.json();
    const next = /<([^>]+)>; rel="next"; results="true"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const second = await fetch(next as string, { headers: bearer(acme.orgReadToken) });
    const [secondItem] = await second.json();
    expect(secondItem.uuid).not.toBe(firstItem.uuid);
    expect(second.headers.get("link")).toMatch(/rel="next"; results="false"/);
    const previous = /<([^>]+)>; rel="previous"; results="true"/.exec(second.headers.get("link") ?? "")?.[1];
    const back = await fetch(previous as string, { headers: bearer(acme.orgReadToken) });
    expect((await back.json())[0].uuid).toBe(firstItem.uuid);
  });

  it("answers 401 without a token and with an unknown token", async () => {
    const without = await fetch(`${server.url}${path("acme")}`);
    expect(without.status).toBe(401);
    expect(await without.json()).toEqual({ detail: "Authentication credentials were not provided." });
    const unknown = await fetch(`${server.url}${path("acme")}`, {
      headers: bearer("flu_0000000000000000000000000000000000000000"),
    });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ detail: "Invalid token" });
    const malformed = await fetch(`${server.url}${path("acme")}`, { headers: { Authorization: "Basic abc" } });
    expect(malformed.status).toBe(401);
  });

  it("answers 403 naming the scope when the token lacks org:read", async () => {
    const response = await fetch(`${server.url}${path("acme")}`, { headers: bearer(acme.eventReadToken) });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      detail: "You do not have permission to perform this action.",
      requiredScopes: ["org:read"],
    });
    expect(response.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="org:read"');
  });

  it("answers 404 for an unknown organization and for another organization's slug", async () => {
    const unknown = await fetch(`${server.url}${path("nope")}`, { headers: bearer(acme.orgReadToken) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "The requested resource does not exist" });
    const foreignOrgToken = await fetch(`${server.url}${path("globex")}`, { headers: bearer(acme.orgBoundToken) });
    expect(foreignOrgToken.status).toBe(404);
    const foreignUserToken = await fetch(`${server.url}${path("globex")}`, { headers: bearer(acme.orgReadToken) });
    expect(foreignUserToken.status).toBe(404);
    // The other organization sees only its own installation.
    const own = await fetch(`${server.url}${path("globex")}`, { headers: bearer(other.orgReadToken) });
    expect(await own.json()).toEqual([]);
  });

  it("returns 404 (not 403) for a foreign organization even when the token also lacks the scope", async () => {
    const response = await fetch(`${server.url}${path("globex")}`, { headers: bearer(acme.eventReadToken) });
    expect(response.status).toBe(404);
  });
});
