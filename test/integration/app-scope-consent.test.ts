import { randomUUID } from "node:crypto";
import { Kysely, PostgresDialect } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomHex } from "../../src/crypto/secrets.js";
import type { Database } from "../../src/db/schema.js";
import { runMigrations } from "../../src/db/migrator.js";
import { createFaultline, definePlugin, SCOPES, tokens } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { openRawDatabase, type RawDatabase } from "../helpers/database.js";
import { coreLedgerMigrations, firstPartyMigrationNames } from "../helpers/migrations.js";
import { seedOrganization } from "../helpers/seed.js";
import { type RunningServer, serveFaultline, httpAnswerCaller } from "../helpers/server.js";

interface SeenConsentEvent {
  name: string;
  organizationId: number;
  installation: string;
  actor: { type: string; id: string; name: string };
  scopes: string[];
  /** What the installation's row holds when the subscriber runs (in the emitting transaction). */
  storedConsent: string[];
}

const seen: SeenConsentEvent[] = [];

/** Records a consent event with the consent its installation's row holds in the emitting transaction. */
async function record(
  event: {
    name: string;
    organizationId: number;
    actor: SeenConsentEvent["actor"];
    payload: { installation: { id: number; uuid: string } };
  },
  scope: { trx: Kysely<Database> },
  scopes: string[],
): Promise<void> {
  const row = await scope.trx
    .selectFrom("app_installations")
    .select("consented_scopes")
    .where("id", "=", event.payload.installation.id)
    .executeTakeFirstOrThrow();
  seen.push({
    name: event.name,
    organizationId: event.organizationId,
    installation: event.payload.installation.uuid,
    actor: event.actor,
    scopes,
    storedConsent: row.consented_scopes,
  });
}

/** A host plugin that would tell the organization's admins; here it records what it was told. */
const notifier = definePlugin({
  id: "consent-notifier",
  on: {
    "installation.scopes_requested": (event, scope) => record(event, scope, event.payload.requestedScopes),
    "installation.scopes_approved": (event, scope) => record(event, scope, event.payload.approvedScopes),
  },
});

/** A public address literal: accepted without DNS, never contacted (no worker runs here). */
const HOOK_URL = "https://93.184.215.14/exfiltrate";
/** What the app owner adds to its public app: enough to read members, leak events and create apps. */
const ESCALATED = ["event:read", "member:read", "project:write", "org:admin"];

/**
 * #13 finding 8: the owner of a public app adds scopes with `PUT /api/0/svc-apps/{slug}/`; the
 * installation tokens of *other* organizations must not gain them until those organizations approve.
 */
describe("app scope changes and installation consent", () => {
  let instance: TestInstance<[typeof notifier]>;
  let server: RunningServer;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let initech: Awaited<ReturnType<typeof seedOrganization>>;
  let app: { slug: string; clientId: string; clientSecret: string };
  /** A user whose role in acme is `admin`: org:integrations, member:read, project:admin, but no org:admin. */
  let acmeAdminRole: string;
  /** acme's installation of the app, and the app's current token there. */
  let inAcme: { uuid: string; code: string };
  let acmeToken: { token: string; refreshToken: string };
  let inInitech: { uuid: string; code: string };
  let initechToken: string;

  const call = httpAnswerCaller(() => server.url);

  const credentials = () => ({ client_id: app.clientId, client_secret: app.clientSecret });
  const exchangeCode = (uuid: string, code: string) =>
    call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, {
      grant_type: "authorization_code",
      code,
      ...credentials(),
    });
  const refresh = (uuid: string, refreshToken: string) =>
    call("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      ...credentials(),
    });

  /** What the escalated scopes would open in `org`: its SCIM users, a service hook, a new app. */
  const reach = (org: string, token: string) =>
    Promise.all([
      call("GET", `/api/0/organizations/${org}/scim/v2/Users`, token).then((r) => r.status),
      call("POST", `/api/0/projects/${org}/hooked/hooks/`, token, { url: HOOK_URL, events: ["event.created"] }).then(
        (r) => r.status,
      ),
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
    instance = await createTestInstance({ worker: false, plugins: [notifier] });
    globex = await seedOrganization(instance.faultline, "globex");
    acme = await victim("acme");
    initech = await victim("initech");
    app = await instance.faultline.api.apps.create({
      organization: "globex",
      name: "Reach",
      slug: "reach",
      scopes: ["event:read"],
      webhookUrl: HOOK_URL,
      events: ["installation"],
    });
    const admin = await instance.faultline.api.users.create({ username: "acme-admin" });
    await instance.faultline.api.members.add({ organization: "acme", user: admin.id, role: "admin" });
    acmeAdminRole = (await instance.faultline.api.tokens.create({ user: admin.id, scopes: [...SCOPES] })).token;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("adding scopes to a public app widens no other organization's tokens: existing, refreshed or from an unused code", async () => {
    inAcme = (
      await call("POST", "/api/0/organizations/acme/svc-app-installations/", acme.allScopesToken, { slug: "reach" })
    ).body;
    const first = (await exchangeCode(inAcme.uuid, inAcme.code)).body;
    expect(first.scopes).toEqual(["event:read"]);
    // initech installs but the app has not used its grant code yet.
    inInitech = (
      await call("POST", "/api/0/organizations/initech/svc-app-installations/", initech.allScopesToken, {
        slug: "reach",
      })
    ).body;
    expect(await reach("acme", first.token)).toEqual([403, 403, 403]);

    expect((await call("PUT", "/api/0/svc-apps/reach/", globex.allScopesToken, { scopes: ESCALATED })).status).toBe(
      200,
    );

    // The token acme's installation already holds.
    expect(await reach("acme", first.token)).toEqual([403, 403, 403]);
    expect((await call("GET", "/api/0/organizations/acme/issues/", first.token)).status).toBe(200);
    // A refreshed token.
    const refreshed = await refresh(inAcme.uuid, first.refreshToken);
    expect(refreshed.status).toBe(201);
    expect(refreshed.body.scopes).toEqual(["event:read"]);
    expect(await reach("acme", refreshed.body.token)).toEqual([403, 403, 403]);
    acmeToken = refreshed.body;
    // A token bought with a grant code issued before the change.
    const fresh = await exchangeCode(inInitech.uuid, inInitech.code);
    expect(fresh.status).toBe(201);
    expect(fresh.body.scopes).toEqual(["event:read"]);
    expect(await reach("initech", fresh.body.token)).toEqual([403, 403, 403]);
    initechToken = fresh.body.token;
  });

  it("shows the pending scopes on the installation and tells each organization (installation.scopes_requested)", async () => {
    const pending = ["member:read", "project:write", "org:admin"];
    const listed = await call("GET", "/api/0/organizations/acme/svc-app-installations/", acme.orgReadToken);
    expect(listed.body).toEqual([
      {
        app: { uuid: expect.any(String), slug: "reach", name: "Reach" },
        organization: { slug: "acme" },
        uuid: inAcme.uuid,
        status: "installed",
        scopes: ["event:read"],
        pendingScopes: pending,
      },
    ]);
    const detail = await call("GET", `/api/0/svc-app-installations/${inAcme.uuid}/`, acme.orgReadToken);
    expect(detail).toEqual({ status: 200, body: listed.body[0] });
    // The app's own token may read its installation (with org:read, which it lacks here), another organization may not.
    expect((await call("GET", `/api/0/svc-app-installations/${inAcme.uuid}/`, acmeToken.token)).status).toBe(403);
    expect((await call("GET", `/api/0/svc-app-installations/${inAcme.uuid}/`, globex.allScopesToken)).status).toBe(404);

    const requested = seen.filter((event) => event.name === "installation.scopes_requested");
    expect(requested).toEqual([
      expect.objectContaining({
        organizationId: Number(acme.organization.id),
        installation: inAcme.uuid,
        scopes: pending,
        storedConsent: ["event:read"],
      }),
      expect.objectContaining({
        organizationId: Number(initech.organization.id),
        installation: inInitech.uuid,
        scopes: pending,
        storedConsent: ["event:read"],
      }),
    ]);
    // The owner who changed the app is the actor.
    expect(requested[0]?.actor).toEqual({ type: "user", id: String(globex.owner.id), name: expect.any(String) });
  });

  it("refuses approval by an installation token (403), another organization (404), and a caller lacking the scopes (400)", async () => {
    const approve = (uuid: string, token: string | undefined, scopes: unknown) =>
      call("POST", `/api/0/svc-app-installations/${uuid}/approve-scopes/`, token, { scopes });
    const refused = await approve(inAcme.uuid, acmeToken.token, ["member:read"]);
    expect(refused.status).toBe(403);
    // The owner of the app, with every scope in its own organization: acme's installation does not exist for it.
    const foreign = await approve(inAcme.uuid, globex.allScopesToken, ["member:read"]);
    const unknown = await approve("00000000-0000-4000-8000-000000000000", globex.allScopesToken, ["member:read"]);
    expect(foreign).toEqual({ status: 404, body: { detail: "The requested resource does not exist" } });
    expect(unknown).toEqual(foreign);
    expect((await approve(inInitech.uuid, acme.allScopesToken, ["member:read"])).status).toBe(404);
    expect((await approve(inAcme.uuid, undefined, ["member:read"])).status).toBe(401);
    // Without org:integrations; then with it but without the scope approved.
    expect((await approve(inAcme.uuid, acme.orgReadToken, ["member:read"])).status).toBe(403);
    const beyondRole = await approve(inAcme.uuid, acmeAdminRole, ["member:read", "org:admin"]);
    expect(beyondRole.status).toBe(400);
    expect(beyondRole.body.errors).toEqual({ scopes: ["Approved scopes exceed yours: org:admin"] });
    const integrationsOnly = (
      await instance.faultline.api.tokens.create({ organization: "acme", scopes: ["org:integrations"] })
    ).token;
    expect((await approve(inAcme.uuid, integrationsOnly, ["member:read"])).body.errors).toEqual({
      scopes: ["Approved scopes exceed yours: member:read"],
    });
    // Only what the app asks for, named.
    expect((await approve(inAcme.uuid, acme.allScopesToken, ["team:admin"])).body.errors).toEqual({
      scopes: ["The app does not ask for: team:admin"],
    });
    for (const scopes of [[], ["org:dance"], "member:read", undefined]) {
      const bad = await approve(inAcme.uuid, acme.allScopesToken, scopes);
      expect(bad.status, JSON.stringify(scopes)).toBe(400);
      expect(Object.keys(bad.body.errors)[0], JSON.stringify(scopes)).toMatch(/^scopes/);
    }
    // Nothing changed.
    expect(
      (await call("GET", `/api/0/svc-app-installations/${inAcme.uuid}/`, acme.orgReadToken)).body.pendingScopes,
    ).toEqual(["member:read", "project:write", "org:admin"]);
    expect(await reach("acme", acmeToken.token)).toEqual([403, 403, 403]);
    expect(seen.filter((event) => event.name === "installation.scopes_approved")).toEqual([]);
  });

  it("approval gives the installation's existing and future tokens the approved scopes (installation.scopes_approved)", async () => {
    const approve = (token: string, scopes: string[]) =>
      call("POST", `/api/0/svc-app-installations/${inAcme.uuid}/approve-scopes/`, token, { scopes });
    // An admin-role member holds member:read and project:write, not org:admin.
    const partly = await approve(acmeAdminRole, ["member:read", "project:write"]);
    expect(partly.status).toBe(200);
    expect(partly.body).toMatchObject({
      uuid: inAcme.uuid,
      scopes: ["event:read", "member:read", "project:write"],
      pendingScopes: ["org:admin"],
    });
    expect(await reach("acme", acmeToken.token)).toEqual([200, 201, 403]);
    expect((await approve(acme.allScopesToken, ["org:admin"])).body).toMatchObject({
      scopes: ESCALATED,
      pendingScopes: [],
    });
    expect(await reach("acme", acmeToken.token)).toEqual([200, 201, 201]);
    // Approving again changes nothing and tells no one.
    expect((await approve(acme.allScopesToken, ["org:admin"])).status).toBe(200);
    const approved = seen.filter((event) => event.name === "installation.scopes_approved");
    expect(approved).toEqual([
      expect.objectContaining({
        organizationId: Number(acme.organization.id),
        installation: inAcme.uuid,
        scopes: ["member:read", "project:write"],
        storedConsent: ["event:read", "member:read", "project:write"],
      }),
      expect.objectContaining({
        installation: inAcme.uuid,
        scopes: ["org:admin"],
        storedConsent: ESCALATED,
        actor: expect.objectContaining({ type: "user", id: String(acme.owner.id) }),
      }),
    ]);
    // The app is told with a webhook (queued: no worker runs here); the organization by the event above.
    const db = instance.faultline.container.resolve(tokens.Db);
    const told = await db
      .selectFrom("deliveries")
      .select("body")
      .where("installation_uuid", "=", inAcme.uuid)
      .where("event_type", "=", "installation.scopes_approved")
      .orderBy("seq")
      .execute();
    expect(told.map((delivery) => JSON.parse(delivery.body))).toEqual([
      {
        action: "scopes_approved",
        installation: { uuid: inAcme.uuid },
        data: {
          installation: {
            uuid: inAcme.uuid,
            app: { uuid: expect.any(String), slug: "reach" },
            organization: { slug: "acme" },
            status: "installed",
          },
          scopes: ["event:read", "member:read", "project:write"],
          approved_scopes: ["member:read", "project:write"],
        },
        actor: { type: "user", id: expect.any(String), name: expect.any(String) },
      },
      expect.objectContaining({
        action: "scopes_approved",
        data: expect.objectContaining({ scopes: ESCALATED, approved_scopes: ["org:admin"] }),
      }),
    ]);
    // A refreshed token carries them too.
    const refreshed = await refresh(inAcme.uuid, acmeToken.refreshToken);
    expect(refreshed.body.scopes).toEqual(ESCALATED);
    acmeToken = refreshed.body;
    // Holding org:admin now, the app still cannot approve anything for itself.
    const self = await call("POST", `/api/0/svc-app-installations/${inAcme.uuid}/approve-scopes/`, acmeToken.token, {
      scopes: ["org:admin"],
    });
    expect(self).toEqual({ status: 403, body: { detail: "An installation token cannot approve scopes" } });
    // Approval is per organization: initech's token has not moved.
    expect(await reach("initech", initechToken)).toEqual([403, 403, 403]);
  });

  it("the owning organization's own installation follows the app's scopes without approval", async () => {
    const own = (
      await call("POST", "/api/0/organizations/globex/svc-app-installations/", globex.allScopesToken, { slug: "reach" })
    ).body;
    expect(own).toMatchObject({ scopes: ESCALATED, pendingScopes: [] });
    const ownToken = (await exchangeCode(own.uuid, own.code)).body.token;
    const internal = (
      await call("POST", "/api/0/svc-apps/", globex.allScopesToken, {
        organization: "globex",
        name: "Inside",
        isInternal: true,
        scopes: ["event:read"],
      })
    ).body;
    const internalToken = (
      await call("POST", `/api/0/svc-app-installations/${internal.installation.uuid}/authorizations/`, undefined, {
        grant_type: "authorization_code",
        code: internal.installation.code,
        client_id: internal.clientId,
        client_secret: internal.clientSecret,
      })
    ).body.token;
    const before = seen.length;
    expect((await call("GET", "/api/0/organizations/globex/svc-app-installations/", internalToken)).status).toBe(403);
    expect(
      (
        await call("PUT", `/api/0/svc-apps/${internal.slug}/`, globex.allScopesToken, {
          scopes: ["event:read", "org:read"],
        })
      ).status,
    ).toBe(200);
    expect((await call("GET", "/api/0/organizations/globex/svc-app-installations/", internalToken)).status).toBe(200);

    expect((await call("GET", "/api/0/organizations/globex/alert-rules/", ownToken)).status).toBe(403);
    expect(
      (await call("PUT", "/api/0/svc-apps/reach/", globex.allScopesToken, { scopes: [...ESCALATED, "alerts:write"] }))
        .status,
    ).toBe(200);
    expect((await call("GET", "/api/0/organizations/globex/alert-rules/", ownToken)).status).toBe(200);
    expect((await call("GET", `/api/0/svc-app-installations/${own.uuid}/`, globex.orgReadToken)).body).toMatchObject({
      scopes: [...ESCALATED, "alerts:write"],
      pendingScopes: [],
    });
    // Elsewhere alerts:write is pending, and only there is anyone asked.
    expect((await call("GET", `/api/0/svc-app-installations/${inAcme.uuid}/`, acme.orgReadToken)).body).toMatchObject({
      scopes: ESCALATED,
      pendingScopes: ["alerts:write"],
    });
    const requested = seen.slice(before).filter((event) => event.name === "installation.scopes_requested");
    expect(requested.map((event) => [event.installation, event.scopes])).toEqual([
      [inAcme.uuid, ["alerts:write"]],
      [inInitech.uuid, ["alerts:write"]],
    ]);
  });

  it("narrowing the app narrows every installation at once, and what it dropped must be approved again", async () => {
    expect(
      (await call("PUT", "/api/0/svc-apps/reach/", globex.allScopesToken, { scopes: ["event:read"] })).status,
    ).toBe(200);
    expect(await reach("acme", acmeToken.token)).toEqual([403, 403, 403]);
    for (const org of [acme, initech]) {
      const [installation] = (
        await call("GET", "/api/0/organizations/" + org.organization.slug + "/svc-app-installations/", org.orgReadToken)
      ).body;
      expect(installation).toMatchObject({ scopes: ["event:read"], pendingScopes: [] });
    }
    acmeToken = (await refresh(inAcme.uuid, acmeToken.refreshToken)).body;
    expect(acmeToken).toMatchObject({ scopes: ["event:read"] });
    // Widening again: acme had approved member:read once, but that consent went with the narrowing.
    expect(
      (await call("PUT", "/api/0/svc-apps/reach/", globex.allScopesToken, { scopes: ["event:read", "member:read"] }))
        .status,
    ).toBe(200);
    const [again] = (await call("GET", "/api/0/organizations/acme/svc-app-installations/", acme.orgReadToken)).body;
    expect(again).toMatchObject({ scopes: ["event:read"], pendingScopes: ["member:read"] });
  });

  it("an installation consents over HTTP to what its installer holds; the rest is pending", async () => {
    // Without this, a member with org:integrations but not org:admin could install an app of their
    // own making and exchange its grant code for an org:admin token.
    const adminBot = await instance.faultline.api.apps.create({
      organization: "globex",
      name: "Admin Bot",
      slug: "admin-bot",
      scopes: ["event:read", "org:admin"],
    });
    const before = seen.length;
    const installed = await call("POST", "/api/0/organizations/acme/svc-app-installations/", acmeAdminRole, {
      slug: "admin-bot",
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({
      scopes: ["event:read"],
      pendingScopes: ["org:admin"],
      code: expect.any(String),
    });
    expect(seen.slice(before)).toEqual([
      expect.objectContaining({
        name: "installation.scopes_requested",
        installation: installed.body.uuid,
        scopes: ["org:admin"],
        storedConsent: ["event:read"],
      }),
    ]);
    const exchanged = await call(
      "POST",
      `/api/0/svc-app-installations/${installed.body.uuid}/authorizations/`,
      undefined,
      {
        grant_type: "authorization_code",
        code: installed.body.code,
        client_id: adminBot.clientId,
        client_secret: adminBot.clientSecret,
      },
    );
    expect(exchanged.body.scopes).toEqual(["event:read"]);
    expect(
      (await call("POST", "/api/0/svc-apps/", exchanged.body.token, { organization: "acme", name: "Planted" })).status,
    ).toBe(403);
  });

  it("offers approval in-process (the trusted host), with the same validation", async () => {
    const { api } = instance.faultline;
    const approved = await api.installations.approveScopes(inAcme.uuid, { scopes: ["member:read"] });
    expect(approved).toMatchObject({ uuid: inAcme.uuid, scopes: ["event:read", "member:read"], pendingScopes: [] });
    expect(await reach("acme", acmeToken.token)).toEqual([200, 403, 403]);
    expect((await refresh(inAcme.uuid, acmeToken.refreshToken)).body.scopes).toEqual(["event:read", "member:read"]);
    expect(seen.at(-1)).toMatchObject({
      name: "installation.scopes_approved",
      installation: inAcme.uuid,
      scopes: ["member:read"],
      actor: { type: "application", id: "svc", name: "svc" },
    });
    await expect(
      api.installations.approveScopes("00000000-0000-4000-8000-000000000000", { scopes: ["member:read"] }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(api.installations.approveScopes(inAcme.uuid, { scopes: ["team:admin"] })).rejects.toMatchObject({
      status: 400,
    });
    // The host installs with full consent.
    const hosted = await api.installations.install({ organization: "initech", app: "admin-bot" });
    expect(hosted).toMatchObject({ scopes: ["event:read", "org:admin"], pendingScopes: [] });
  });
});

describe("migration 0007_installation_consent", () => {
  let raw: RawDatabase;
  const schema = `faultline_consent_${randomHex(4)}`;

  beforeAll(async () => {
    raw = await openRawDatabase();
  });
  afterAll(async () => {
    await raw?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await raw?.close();
  });

  it("backfills each existing installation's consent with its app's scopes, so no token changes", async () => {
    const root =
      typeof raw.input === "string"
        ? new Kysely<unknown>({
            dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: raw.input, max: 1 }) }),
          })
        : new Kysely<unknown>({ dialect: new PGliteDialect(raw.input) });
    try {
      const released = coreLedgerMigrations.filter((migration) => migration.name < "0007");
      await runMigrations(root, { schema, migrations: released, tableName: "faultline_migration" });
    } finally {
      // The PGlite dialect's destroy() would close the shared PGlite.
      if (typeof raw.input === "string") await root.destroy();
    }
    const [owner] = await raw.query<{ id: number }>(
      `INSERT INTO ${schema}.organizations (slug, name, date_created) VALUES ('owner', 'Owner', now()) RETURNING id`,
    );
    const [other] = await raw.query<{ id: number }>(
      `INSERT INTO ${schema}.organizations (slug, name, date_created) VALUES ('other', 'Other', now()) RETURNING id`,
    );
    const [app] = await raw.query<{ id: number }>(
      `INSERT INTO ${schema}.apps (uuid, organization_id, slug, name, scopes, client_id, client_secret, date_created)
       VALUES ($1, $2, 'legacy', 'Legacy', '{event:read,member:read}', 'legacy-client', 'legacy-secret', now()) RETURNING id`,
      [randomUUID(), owner?.id],
    );
    await raw.query(
      `INSERT INTO ${schema}.app_installations (uuid, app_id, organization_id, date_created) VALUES ($1, $2, $3, now())`,
      [randomUUID(), app?.id, other?.id],
    );

    const faultline = createFaultline({ database: raw.input, schema, logger: silentLogger });
    try {
      // The core's from 0007 on, then the first-party plugins' own (never applied here before).
      const pending = firstPartyMigrationNames.filter((name) => name >= "0007");
      expect((await faultline.migrate()).applied).toEqual(pending);
      expect(pending[0]).toBe("0007_installation_consent");
      const consent = () =>
        raw.query<{ consented_scopes: string[] }>(`SELECT consented_scopes FROM ${schema}.app_installations`);
      expect(await consent()).toEqual([{ consented_scopes: ["event:read", "member:read"] }]);
      // From here on the rules apply to it: what the app adds is not consented.
      await faultline.api.apps.update("legacy", { scopes: ["event:read", "member:read", "org:admin"] });
      expect(await consent()).toEqual([{ consented_scopes: ["event:read", "member:read"] }]);
    } finally {
      await faultline.close();
    }
  });
});
