import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline, httpCaller } from "../helpers/server.js";

interface SeenEvent {
  name: string;
  organizationId: number;
  app: string;
  installation: string;
  actor: { type: string; id: string; name: string };
  /** For installation.deleted: whether the installation row was still readable in the emitting transaction. */
  rowStillThere?: boolean;
}

const seen: SeenEvent[] = [];
const spy = definePlugin({
  id: "spy",
  on: {
    "installation.created": (event) =>
      void seen.push({
        name: event.name,
        organizationId: event.organizationId,
        app: event.payload.app.slug,
        installation: event.payload.installation.uuid,
        actor: event.actor,
      }),
    "installation.deleted": async (event, scope) => {
      const row = await scope.trx
        .selectFrom("app_installations")
        .select("id")
        .where("id", "=", event.payload.installation.id)
        .executeTakeFirst();
      seen.push({
        name: event.name,
        organizationId: event.organizationId,
        app: event.payload.app.slug,
        installation: event.payload.installation.uuid,
        actor: event.actor,
        rowStillThere: row !== undefined,
      });
    },
  },
});

const PRIVATE_URLS = [
  "http://127.0.0.1:9/hook",
  "http://10.1.2.3/hook",
  "http://169.254.169.254/latest/meta-data/",
  "http://[::1]/hook",
  "http://[::ffff:10.0.0.1]/hook",
];
/** A public address literal: accepted without DNS, never contacted (these tests run no worker). */
const PUBLIC_URL = "https://93.184.215.14/hooks/faultline";

describe("apps, installations and the OAuth exchange over HTTP", () => {
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  /** A token with every scope, of a user whose role in acme is `admin` (no org:admin). */
  let adminRoleToken: string;
  let clockOffsetMs = 0;
  const clock = { now: () => new Date(Date.now() + clockOffsetMs) };

  const call = httpCaller(() => server.url);

  const createApp = (body: Record<string, unknown>, token = acme.allScopesToken) =>
    call("POST", "/api/0/svc-apps/", token, { organization: "acme", ...body });
  const install = (org: string, slug: string, token: string) =>
    call("POST", `/api/0/organizations/${org}/svc-app-installations/`, token, { slug });
  const exchange = (uuid: string, body: Record<string, unknown>) =>
    call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, body);

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, clock, plugins: [spy] });
    const { api } = instance.faultline;
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    const admin = await api.users.create({ username: "acme-admin" });
    await api.members.add({ organization: "acme", user: admin.id, role: "admin" });
    adminRoleToken = (await api.tokens.create({ user: admin.id, scopes: [...SCOPES] })).token;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  describe("apps", () => {
    it("creates an app: 201 with its client secret, which no later read shows", async () => {
      const created = await createApp({
        name: "Ticket Sync",
        slug: "ticket-sync",
        webhookUrl: PUBLIC_URL,
        events: ["issue", "issue"],
        scopes: ["event:read"],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        slug: "ticket-sync",
        name: "Ticket Sync",
        status: "published",
        webhookUrl: PUBLIC_URL,
        events: ["issue"],
        scopes: ["event:read"],
        isInternal: false,
        schema: null,
        clientId: expect.stringMatching(/^[0-9a-f]{64}$/),
        installation: null,
      });
      expect(created.body.clientSecret).toMatch(/^[0-9a-f]{64}$/);
      const read = await call("GET", "/api/0/svc-apps/ticket-sync/", acme.orgReadToken);
      expect(read.status).toBe(200);
      expect(read.body.clientSecret).toBeUndefined();
      expect(JSON.stringify(read.body)).not.toContain(created.body.clientSecret);
      const list = await call("GET", "/api/0/organizations/acme/svc-apps/", acme.orgReadToken);
      expect(list.body.map((app: { slug: string }) => app.slug)).toContain("ticket-sync");
      expect(JSON.stringify(list.body)).not.toContain(created.body.clientSecret);
      expect(list.headers.get("link")).toMatch(/rel="next"/);
    });

    it("installs an internal app in its owner at once (installation.created, grant code in the response)", async () => {
      const created = await createApp({ name: "Internal", slug: "internal", isInternal: true, scopes: ["event:read"] });
      expect(created.status).toBe(201);
      expect(created.body.status).toBe("internal");
      expect(created.body.installation).toMatchObject({
        uuid: expect.any(String),
        status: "installed",
        organization: { slug: "acme" },
        app: { slug: "internal" },
        code: expect.any(String),
      });
      expect(seen).toContainEqual(
        expect.objectContaining({
          name: "installation.created",
          app: "internal",
          installation: created.body.installation.uuid,
          actor: expect.objectContaining({ type: "user" }),
        }),
      );
      const installed = await call("GET", "/api/0/organizations/acme/svc-app-installations/", acme.orgReadToken);
      expect(installed.body.map((i: { uuid: string }) => i.uuid)).toContain(created.body.installation.uuid);
    });

    it("needs org:admin in the owning organization; other organizations are a 404", async () => {
      expect((await call("POST", "/api/0/svc-apps/", undefined, { organization: "acme", name: "X" })).status).toBe(401);
      const readOnly = await createApp({ name: "X" }, acme.orgReadToken);
      expect(readOnly.status).toBe(403);
      expect(readOnly.body).toEqual({
        detail: "You do not have permission to perform this action.",
        requiredScopes: ["org:admin"],
      });
      expect(readOnly.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="org:admin"');
      // A member whose role lacks org:admin, whatever the token says.
      expect((await createApp({ name: "X" }, adminRoleToken)).status).toBe(403);
      expect(
        (await call("POST", "/api/0/svc-apps/", globex.allScopesToken, { organization: "acme", name: "X" })).status,
      ).toBe(404);
      expect(
        (await call("POST", "/api/0/svc-apps/", acme.allScopesToken, { organization: "nope", name: "X" })).status,
      ).toBe(404);
      expect((await call("PUT", "/api/0/svc-apps/ticket-sync/", globex.allScopesToken, { name: "Y" })).status).toBe(
        404,
      );
      expect((await call("PUT", "/api/0/svc-apps/ticket-sync/", acme.orgReadToken, { name: "Y" })).status).toBe(403);
      expect((await call("GET", "/api/0/svc-apps/ticket-sync/", globex.allScopesToken)).status).toBe(404);
      expect((await call("GET", "/api/0/svc-apps/ticket-sync/requests/", globex.allScopesToken)).status).toBe(404);
      expect((await call("POST", "/api/0/svc-apps/ticket-sync/rotate-secret/", globex.allScopesToken)).status).toBe(
        404,
      );
      expect((await call("DELETE", "/api/0/svc-apps/ticket-sync/", globex.allScopesToken)).status).toBe(404);
      expect((await call("GET", "/api/0/organizations/globex/svc-apps/", acme.allScopesToken)).status).toBe(404);
      expect((await call("GET", "/api/0/svc-apps/no-such-app/", acme.allScopesToken)).status).toBe(404);
    });

    it("refuses scopes beyond the caller's, private webhook URLs and bad input with 400 and field errors", async () => {
      const orgAdminOnly = (await instance.faultline.api.tokens.create({ organization: "acme", scopes: ["org:admin"] }))
        .token;
      const exceeding = await createApp({ name: "X", scopes: ["event:write"] }, orgAdminOnly);
      expect(exceeding.status).toBe(400);
      expect(exceeding.body.errors).toEqual({ scopes: ["Requested scopes exceed yours: event:write"] });
      for (const url of PRIVATE_URLS) {
        const refused = await createApp({ name: "X", webhookUrl: url });
        expect(refused.status, url).toBe(400);
        expect(refused.body.errors.webhookUrl[0], url).toMatch(/private or reserved address/);
      }
      const cases: Array<[unknown, string]> = [
        [{ organization: "acme" }, "name"],
        [{ organization: "acme", name: "X", events: ["issue", "weather"] }, "events.1"],
        [{ organization: "acme", name: "X", scopes: ["org:dance"] }, "scopes.0"],
        [{ organization: "acme", name: "X", webhookUrl: "ftp://example.com/x" }, "webhookUrl"],
        [{ organization: "acme", name: "X", slug: "Not A Slug" }, "slug"],
        [{ organization: "acme", name: "X", schema: { elements: [{ kind: "no type" }] } }, "schema.elements.0.type"],
        [{ organization: "acme", name: "X", isInternal: "yes" }, "isInternal"],
        [{ name: "X" }, "organization"],
      ];
      for (const [body, field] of cases) {
        const response = await call("POST", "/api/0/svc-apps/", acme.allScopesToken, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(Object.keys(response.body.errors), JSON.stringify(body)).toContain(field);
        expect(response.body.detail).toMatch(/^Invalid request: /);
      }
      expect((await call("POST", "/api/0/svc-apps/", acme.allScopesToken, "{nope")).status).toBe(400);
      const taken = await createApp({ name: "Dup", slug: "ticket-sync" });
      expect(taken.status).toBe(409);
      expect(taken.body.detail).toMatch(/already taken/);
      const badUpdate = await call("PUT", "/api/0/svc-apps/ticket-sync/", acme.allScopesToken, {
        webhookUrl: "http://10.0.0.1/x",
        events: "issue",
      });
      expect(badUpdate.status).toBe(400);
      const privateUpdate = await call("PUT", "/api/0/svc-apps/ticket-sync/", acme.allScopesToken, {
        webhookUrl: "http://10.0.0.1/x",
      });
      expect(privateUpdate.status).toBe(400);
      expect(privateUpdate.body.errors.webhookUrl).toHaveLength(1);
      const badQuery = await call("GET", "/api/0/svc-apps/ticket-sync/requests/?errorsOnly=maybe", acme.allScopesToken);
      expect(badQuery.status).toBe(400);
    });

    it("updates an app's name, categories, scopes and schema", async () => {
      const updated = await call("PUT", "/api/0/svc-apps/ticket-sync/", acme.allScopesToken, {
        name: "Ticket Sync 2",
        events: ["issue", "comment"],
        schema: { elements: [{ type: "issue-link", link: { uri: "/link" } }] },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        name: "Ticket Sync 2",
        events: ["issue", "comment"],
        scopes: ["event:read"],
        webhookUrl: PUBLIC_URL,
      });
      expect(updated.body.clientSecret).toBeUndefined();
      expect((await call("PUT", "/api/0/svc-apps/ticket-sync/", acme.allScopesToken, {})).body.name).toBe(
        "Ticket Sync 2",
      );
    });

    it("rotates the client secret: a new one, in that response only", async () => {
      const before = await instance.faultline.api.apps.create({
        organization: "acme",
        name: "Rotating",
        slug: "rotating",
      });
      const rotated = await call("POST", "/api/0/svc-apps/rotating/rotate-secret/", acme.allScopesToken);
      expect(rotated.status).toBe(200);
      expect(rotated.body.clientSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(rotated.body.clientSecret).not.toBe(before.clientSecret);
      expect(rotated.body.clientId).toBe(before.clientId);
      expect((await call("GET", "/api/0/svc-apps/rotating/", acme.allScopesToken)).body.clientSecret).toBeUndefined();
      expect((await call("POST", "/api/0/svc-apps/rotating/rotate-secret/", acme.orgReadToken)).status).toBe(403);
      const viaApi = await instance.faultline.api.apps.rotateSecret("rotating");
      expect(viaApi.clientSecret).not.toBe(rotated.body.clientSecret);
    });

    it("pages through the organization's apps", async () => {
      const first = await call("GET", "/api/0/organizations/acme/svc-apps/?per_page=1", acme.orgReadToken);
      expect(first.body).toHaveLength(1);
      const next = /<([^>]+)>; rel="next"; results="true"/.exec(first.headers.get("link") ?? "")?.[1] as string;
      const second = await fetch(next, { headers: bearer(acme.orgReadToken) });
      const [secondApp] = await second.json();
      expect(secondApp.slug).not.toBe(first.body[0].slug);
      expect((await call("GET", "/api/0/organizations/acme/svc-apps/?per_page=0", acme.orgReadToken)).status).toBe(400);
      expect((await call("GET", "/api/0/organizations/acme/svc-apps/?cursor=x", acme.orgReadToken)).status).toBe(400);
    });
  });

  describe("installations", () => {
    let publicApp: { slug: string; clientId: string; clientSecret: string; uuid: string };

    beforeAll(async () => {
      publicApp = await instance.faultline.api.apps.create({
        organization: "globex",
        name: "Tracker",
        slug: "tracker",
        scopes: ["event:read", "event:write"],
      });
    });

    it("installs a public app by slug: 201 with the grant code, then 200 with the same installation", async () => {
      const created = await install("acme", "tracker", acme.allScopesToken);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        app: { uuid: publicApp.uuid, slug: "tracker", name: "Tracker" },
        organization: { slug: "acme" },
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: "installed",
        scopes: ["event:read", "event:write"],
        pendingScopes: [],
        code: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      });
      const again = await install("acme", "tracker", acme.allScopesToken);
      expect(again.status).toBe(200);
      expect(again.body.uuid).toBe(created.body.uuid);
      expect(
        seen.filter((e) => e.name === "installation.created" && e.installation === created.body.uuid),
      ).toHaveLength(1);
      expect(seen.find((e) => e.installation === created.body.uuid)?.organizationId).toBe(Number(acme.organization.id));
    });

    it("refuses unknown apps, another organization's internal app, missing scopes and bad bodies", async () => {
      expect((await install("acme", "no-such-app", acme.allScopesToken)).status).toBe(404);
      await instance.faultline.api.apps.create({
        organization: "globex",
        name: "Private",
        slug: "globex-private",
        isInternal: true,
      });
      expect((await install("acme", "globex-private", acme.allScopesToken)).status).toBe(404);
      const readOnly = await install("acme", "tracker", acme.orgReadToken);
      expect(readOnly.status).toBe(403);
      expect(readOnly.body.requiredScopes).toEqual(["org:integrations"]);
      expect((await install("globex", "tracker", acme.allScopesToken)).status).toBe(404);
      const missing = await call("POST", "/api/0/organizations/acme/svc-app-installations/", acme.allScopesToken, {});
      expect(missing.status).toBe(400);
      expect(Object.keys(missing.body.errors)).toEqual(["slug"]);
    });

    it("uninstalls: 204, installation.deleted emitted while the row still exists; then 404", async () => {
      const { body } = await install("globex", "tracker", globex.allScopesToken);
      const path = `/api/0/svc-app-installations/${body.uuid}/`;
      expect((await call("DELETE", path, acme.allScopesToken)).status).toBe(404);
      expect((await call("DELETE", path, globex.orgReadToken)).status).toBe(403);
      expect((await call("DELETE", path)).status).toBe(401);
      expect((await call("DELETE", path, globex.allScopesToken)).status).toBe(204);
      expect(seen).toContainEqual(
        expect.objectContaining({
          name: "installation.deleted",
          installation: body.uuid,
          app: "tracker",
          organizationId: Number(globex.organization.id),
          rowStillThere: true,
        }),
      );
      expect((await call("DELETE", path, globex.allScopesToken)).status).toBe(404);
      expect((await call("DELETE", "/api/0/svc-app-installations/not-a-uuid/", globex.allScopesToken)).status).toBe(
        404,
      );
      const listed = await call("GET", "/api/0/organizations/globex/svc-app-installations/", globex.orgReadToken);
      expect(listed.body.map((i: { uuid: string }) => i.uuid)).not.toContain(body.uuid);
    });

    it("deleting an app uninstalls it everywhere, with installation.deleted for each installation", async () => {
      const app = await instance.faultline.api.apps.create({
        organization: "acme",
        name: "Doomed",
        slug: "doomed",
        isInternal: false,
      });
      const inAcme = await install("acme", "doomed", acme.allScopesToken);
      const inGlobex = await install("globex", "doomed", globex.allScopesToken);
      expect((await call("DELETE", "/api/0/svc-apps/doomed/", acme.orgReadToken)).status).toBe(403);
      expect((await call("DELETE", "/api/0/svc-apps/doomed/", acme.allScopesToken)).status).toBe(204);
      const deleted = seen.filter((e) => e.name === "installation.deleted" && e.app === "doomed");
      expect(deleted.map((e) => e.installation).sort()).toEqual([inAcme.body.uuid, inGlobex.body.uuid].sort());
      expect(deleted.every((e) => e.rowStillThere)).toBe(true);
      expect((await call("GET", "/api/0/svc-apps/doomed/", acme.allScopesToken)).status).toBe(404);
      expect(
        (
          await exchange(inAcme.body.uuid, {
            grant_type: "authorization_code",
            code: inAcme.body.code,
            client_id: app.clientId,
            client_secret: app.clientSecret,
          })
        ).status,
      ).toBe(401);
    });

    it("lists the UI components of installed apps", async () => {
      await instance.faultline.api.apps.create({
        organization: "globex",
        name: "Widgets",
        slug: "widgets",
        schema: {
          elements: [
            { type: "issue-link", create: { uri: "/create" } },
            { type: "stacktrace-link", uri: "/st" },
          ],
        },
      });
      await install("acme", "widgets", acme.allScopesToken);
      const all = await call("GET", "/api/0/organizations/acme/svc-app-components/", acme.orgReadToken);
      expect(all.status).toBe(200);
      const widgets = all.body.filter((c: { app: { slug: string } }) => c.app.slug === "widgets");
      expect(widgets).toEqual([
        {
          uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
          type: "issue-link",
          schema: { type: "issue-link", create: { uri: "/create" } },
          app: { uuid: expect.any(String), slug: "widgets", name: "Widgets" },
        },
        {
          uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
          type: "stacktrace-link",
          schema: { type: "stacktrace-link", uri: "/st" },
          app: expect.objectContaining({ slug: "widgets" }),
        },
      ]);
      const filtered = await call(
        "GET",
        "/api/0/organizations/acme/svc-app-components/?filter=stacktrace-link",
        acme.orgReadToken,
      );
      expect(filtered.body.map((c: { type: string }) => c.type)).toEqual(["stacktrace-link"]);
      expect(
        (await call("GET", "/api/0/organizations/acme/svc-app-components/?filter=no-such-type", acme.orgReadToken))
          .body,
      ).toEqual([]);
      const badFilters: Array<[string, string]> = [
        ["filter=", "Too small: expected string to have >=1 characters"],
        [`filter=${"x".repeat(65)}`, "Too big: expected string to have <=64 characters"],
        ["filter=issue-link&filter=stacktrace-link", "Invalid input: expected string, received array"],
      ];
      for (const [query, message] of badFilters) {
        const bad = await call("GET", `/api/0/organizations/acme/svc-app-components/?${query}`, acme.orgReadToken);
        expect(bad.status, query).toBe(400);
        expect(bad.body, query).toEqual({
          detail: `Invalid request: filter: ${message}`,
          errors: { filter: [message] },
        });
      }
      // Not installed in globex's own list: components follow installations, not ownership.
      const own = await call("GET", "/api/0/organizations/globex/svc-app-components/", globex.orgReadToken);
      expect(own.body).toEqual([]);
      expect((await call("GET", "/api/0/organizations/acme/svc-app-components/", acme.eventReadToken)).status).toBe(
        403,
      );
    });
  });

  describe("OAuth exchange", () => {
    let app: { clientId: string; clientSecret: string };
    let installation: { uuid: string; code: string };
    const credentials = () => ({ client_id: app.clientId, client_secret: app.clientSecret });

    beforeAll(async () => {
      app = await instance.faultline.api.apps.create({
        organization: "globex",
        name: "Bot",
        slug: "bot",
        scopes: ["event:read"],
      });
      installation = (await install("acme", "bot", acme.allScopesToken)).body;
    });

    it("trades the grant code for an installation token once; a reused code fails", async () => {
      const first = await exchange(installation.uuid, {
        grant_type: "authorization_code",
        code: installation.code,
        ...credentials(),
      });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        token: expect.stringMatching(/^fli_[A-Za-z0-9]{40}$/),
        refreshToken: expect.any(String),
        expiresAt: expect.any(String),
        scopes: ["event:read"],
      });
      expect(first.headers.get("cache-control")).toBe("no-store");
      const lifetime = new Date(first.body.expiresAt).getTime() - clock.now().getTime();
      expect(lifetime).toBeGreaterThan(8 * 3_600_000 - 60_000);
      expect(lifetime).toBeLessThanOrEqual(8 * 3_600_000);
      const reused = await exchange(installation.uuid, {
        grant_type: "authorization_code",
        code: installation.code,
        ...credentials(),
      });
      expect(reused.status).toBe(400);
      expect(reused.body.detail).toBe("Invalid grant");
      expect(reused.body.errors.code).toHaveLength(1);
    });

    it("refuses wrong client credentials and unknown installations alike (401), and bad bodies (400)", async () => {
      const fresh = (await install("globex", "bot", globex.allScopesToken)).body;
      const wrongSecret = await exchange(fresh.uuid, {
        grant_type: "authorization_code",
        code: fresh.code,
        client_id: app.clientId,
        client_secret: "0".repeat(64),
      });
      expect(wrongSecret.status).toBe(401);
      expect(wrongSecret.body).toEqual({ detail: "Invalid client credentials" });
      const otherApp = await instance.faultline.api.apps.create({
        organization: "globex",
        name: "Other",
        slug: "other-bot",
      });
      const wrongClient = await exchange(fresh.uuid, {
        grant_type: "authorization_code",
        code: fresh.code,
        client_id: otherApp.clientId,
        client_secret: otherApp.clientSecret,
      });
      expect(wrongClient.status).toBe(401);
      // No existence oracle: an unknown installation answers as wrong credentials do.
      expect(
        await exchange("00000000-0000-4000-8000-000000000000", {
          grant_type: "authorization_code",
          code: "x",
          ...credentials(),
        }),
      ).toMatchObject({ status: 401, body: wrongSecret.body });
      expect(await exchange("nope", { grant_type: "authorization_code", code: "x", ...credentials() })).toMatchObject({
        status: 401,
        body: wrongSecret.body,
      });
      const badGrant = await exchange(fresh.uuid, { grant_type: "password", ...credentials() });
      expect(badGrant.status).toBe(400);
      expect(Object.keys(badGrant.body.errors)).toEqual(["grant_type"]);
      const missingCode = await exchange(fresh.uuid, { grant_type: "authorization_code", ...credentials() });
      expect(missingCode.status).toBe(400);
      expect(Object.keys(missingCode.body.errors)).toEqual(["code"]);
      expect((await exchange(fresh.uuid, { grant_type: "authorization_code", code: fresh.code })).status).toBe(400);
      // None of the failures used the code up.
      expect(
        (await exchange(fresh.uuid, { grant_type: "authorization_code", code: fresh.code, ...credentials() })).status,
      ).toBe(201);
    });

    it("gives a token that acts in its organization with the app's scopes only", async () => {
      const code = (await instance.faultline.api.installations.install({ organization: "acme", app: "bot" })).code as
        string | null;
      expect(code).toBeNull(); // already installed and its code used: the existing installation comes back
      const other = await instance.faultline.api.apps.create({
        organization: "globex",
        name: "Scoped",
        slug: "scoped",
        scopes: ["event:read"],
      });
      const installed = (await install("acme", "scoped", acme.allScopesToken)).body;
      const { token } = (
        await exchange(installed.uuid, {
          grant_type: "authorization_code",
          code: installed.code,
          client_id: other.clientId,
          client_secret: other.clientSecret,
        })
      ).body;
      expect((await call("GET", "/api/0/organizations/acme/issues/", token)).status).toBe(200);
      const beyond = await call("GET", "/api/0/organizations/acme/svc-app-installations/", token);
      expect(beyond.status).toBe(403);
      expect(beyond.body.requiredScopes).toEqual(["org:read"]);
      expect((await call("PUT", "/api/0/organizations/acme/issues/1/", token, { status: "resolved" })).status).toBe(
        403,
      );
      // Another organization — even the one that owns the app — is a 404.
      expect((await call("GET", "/api/0/organizations/globex/issues/", token)).status).toBe(404);
      expect((await call("GET", "/api/0/svc-apps/scoped/", token)).status).toBe(404);
      // Replacing the app's scopes narrows the tokens it holds at once; what it adds waits for
      // acme's approval (app-scope-consent.test.ts covers the consent flow).
      expect(
        (await call("PUT", "/api/0/svc-apps/scoped/", globex.allScopesToken, { scopes: ["org:read"] })).status,
      ).toBe(200);
      expect((await call("GET", "/api/0/organizations/acme/issues/", token)).status).toBe(403);
      expect((await call("GET", "/api/0/organizations/acme/svc-app-installations/", token)).status).toBe(403);
      const approved = await call(
        "POST",
        `/api/0/svc-app-installations/${installed.uuid}/approve-scopes/`,
        acme.allScopesToken,
        { scopes: ["org:read"] },
      );
      expect(approved.body).toMatchObject({ scopes: ["org:read"], pendingScopes: [] });
      expect((await call("GET", "/api/0/organizations/acme/svc-app-installations/", token)).status).toBe(200);
      // Uninstalling revokes it.
      expect(
        (await call("DELETE", `/api/0/svc-app-installations/${installed.uuid}/`, acme.allScopesToken)).status,
      ).toBe(204);
      const revoked = await call("GET", "/api/0/organizations/acme/svc-app-installations/", token);
      expect(revoked.status).toBe(401);
    });

    it("refreshes: a new token; the old token and its refresh token stop working; expiry needs a refresh", async () => {
      const installed = (await install("acme", "other-bot", acme.allScopesToken)).body;
      const otherApp = await instance.faultline.api.apps.rotateSecret("other-bot");
      const creds = { client_id: otherApp.clientId, client_secret: otherApp.clientSecret };
      const first = (
        await exchange(installed.uuid, { grant_type: "authorization_code", code: installed.code, ...creds })
      ).body;
      clockOffsetMs = 9 * 3_600_000;
      try {
        const expired = await call("GET", "/api/0/organizations/acme/issues/", first.token);
        expect(expired.status).toBe(401);
        expect(expired.body).toEqual({ detail: "Token expired" });
        const refreshed = await exchange(installed.uuid, {
          grant_type: "refresh_token",
          refresh_token: first.refreshToken,
          ...creds,
        });
        expect(refreshed.status).toBe(201);
        expect(refreshed.body.token).not.toBe(first.token);
        expect(refreshed.body.refreshToken).not.toBe(first.refreshToken);
        expect(new Date(refreshed.body.expiresAt).getTime()).toBeGreaterThan(clock.now().getTime() + 7 * 3_600_000);
        expect(
          (await call("GET", "/api/0/organizations/acme/svc-app-installations/", refreshed.body.token)).status,
        ).toBe(403); // no scopes: the app has none
        expect((await call("GET", "/api/0/organizations/acme/svc-app-installations/", first.token)).status).toBe(401);
        const reused = await exchange(installed.uuid, {
          grant_type: "refresh_token",
          refresh_token: first.refreshToken,
          ...creds,
        });
        expect(reused.status).toBe(400);
        expect(reused.body.detail).toBe("Invalid grant");
        // A refresh token is bound to its installation.
        const elsewhere = (await install("globex", "other-bot", globex.allScopesToken)).body;
        expect(
          (
            await exchange(elsewhere.uuid, {
              grant_type: "refresh_token",
              refresh_token: refreshed.body.refreshToken,
              ...creds,
            })
          ).status,
        ).toBe(400);
        expect(
          (
            await exchange(installed.uuid, {
              grant_type: "refresh_token",
              refresh_token: refreshed.body.refreshToken,
              ...creds,
            })
          ).status,
        ).toBe(201);
      } finally {
        clockOffsetMs = 0;
      }
    });
  });

  it("keeps queued deliveries in step with the app: rotated secret, moved URL, cancelled on uninstall", async () => {
    const { api } = instance.faultline;
    const db = instance.faultline.container.resolve(tokens.Db);
    await api.apps.create({
      organization: "globex",
      name: "Queued",
      slug: "queued",
      webhookUrl: PUBLIC_URL,
      events: ["error", "installation"],
    });
    const installed = (await install("acme", "queued", acme.allScopesToken)).body;
    // No worker runs here: what is enqueued stays pending.
    await captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id })(
      errorEvent({ fingerprint: ["queued"] }),
    );
    const queued = () =>
      db
        .selectFrom("deliveries")
        .selectAll()
        .where("installation_uuid", "=", installed.uuid)
        .orderBy("event_type")
        .execute();
    expect((await queued()).map((d) => [d.event_type, d.status])).toEqual([
      ["error.created", "pending"],
      ["installation.created", "pending"],
    ]);

    const rotated = await call("POST", "/api/0/svc-apps/queued/rotate-secret/", globex.allScopesToken);
    const moved = "https://93.184.215.15/moved";
    expect((await call("PUT", "/api/0/svc-apps/queued/", globex.allScopesToken, { webhookUrl: moved })).status).toBe(
      200,
    );
    for (const delivery of await queued())
      expect([delivery.secret, delivery.url]).toEqual([rotated.body.clientSecret, moved]);

    expect((await call("DELETE", `/api/0/svc-app-installations/${installed.uuid}/`, acme.allScopesToken)).status).toBe(
      204,
    );
    const after = await queued();
    expect(after.filter((d) => d.event_type !== "installation.deleted").map((d) => d.status)).toEqual([
      "cancelled",
      "cancelled",
    ]);
    expect(after.filter((d) => d.event_type === "installation.deleted").every((d) => d.status === "pending")).toBe(
      true,
    );
  });

  it("answers malformed or mistyped bodies on every write endpoint with a 400 and a detail", async () => {
    const uuid = "00000000-0000-4000-8000-000000000000";
    const writes: Array<[string, string, string | undefined]> = [
      ["POST", "/api/0/svc-apps/", acme.allScopesToken],
      ["PUT", "/api/0/svc-apps/ticket-sync/", acme.allScopesToken],
      ["POST", "/api/0/organizations/acme/svc-app-installations/", acme.allScopesToken],
      ["POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined],
      ["POST", `/api/0/svc-app-installations/${uuid}/external-issues/`, acme.allScopesToken],
    ];
    for (const [method, path, token] of writes) {
      for (const body of ["{", "[1, 2]", '"text"', "42"]) {
        const response = await call(method, path, token, body);
        expect(response.status, `${method} ${path} ${body}`).toBe(400);
        expect(typeof response.body.detail, `${method} ${path} ${body}`).toBe("string");
      }
    }
  });

  it("trusts the in-process API: no scope ceiling or creation-time SSRF check, the same shape validation", async () => {
    const { api } = instance.faultline;
    // Over HTTP both are refused (see above); the host calling in-process is trusted with them.
    const trusted = await api.apps.create({
      organization: "acme",
      name: "Trusted",
      slug: "trusted",
      webhookUrl: "http://10.1.2.3/hook",
      scopes: ["org:admin", "event:admin"],
    });
    expect(trusted).toMatchObject({ webhookUrl: "http://10.1.2.3/hook", scopes: ["org:admin", "event:admin"] });
    expect(await api.apps.update("trusted", { webhookUrl: "http://[::1]/hook" })).toMatchObject({
      webhookUrl: "http://[::1]/hook",
    });
    await expect(
      api.apps.create({ organization: "acme", name: "Ftp", webhookUrl: "ftp://example.com/x" }),
    ).rejects.toMatchObject({ status: 400, extra: { errors: { webhookUrl: ["must be an http or https URL"] } } });
    await expect(api.apps.update("trusted", { scopes: ["org:dance" as never] })).rejects.toMatchObject({ status: 400 });
    expect((await call("GET", "/api/0/svc-apps/trusted/", acme.allScopesToken)).body.webhookUrl).toBe(
      "http://[::1]/hook",
    );
  });

  it("offers the matching in-process operations", async () => {
    const { api } = instance.faultline;
    const app = await api.apps.create({ organization: "acme", name: "Hosted", slug: "hosted" });
    const updated = await api.apps.update("hosted", { name: "Hosted 2", scopes: ["event:admin"] });
    expect(updated).toMatchObject({ name: "Hosted 2", scopes: ["event:admin"] });
    const installed = await api.installations.install({ organization: "globex", app: "hosted" });
    expect(installed.created).toBe(true);
    await api.installations.uninstall(installed.uuid);
    expect(seen).toContainEqual(
      expect.objectContaining({
        name: "installation.deleted",
        installation: installed.uuid,
        actor: { type: "application", id: "svc", name: "svc" },
      }),
    );
    await api.apps.delete("hosted");
    await expect(api.apps.update("hosted", {})).rejects.toMatchObject({ status: 404 });
    expect(app.clientSecret).toMatch(/^[0-9a-f]{64}$/);
  });
});
