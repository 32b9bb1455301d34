import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline, httpAnswerCaller } from "../helpers/server.js";

/** Every domain event emitted, by name: a PUT that changes nothing must add none. */
const emitted: string[] = [];
const spy = definePlugin({
  id: "mutation-spy",
  on: {
    "issue.resolved": (event) => void emitted.push(event.name),
    "issue.unresolved": (event) => void emitted.push(event.name),
    "issue.ignored": (event) => void emitted.push(event.name),
    "issue.assigned": (event) => void emitted.push(event.name),
    "comment.updated": (event) => void emitted.push(event.name),
  },
});

/** A public address literal: accepted without DNS, never contacted (no worker runs here). */
const PUBLIC_URL = "https://93.184.215.14/hooks/faultline";

describe("mutations never widen, never 500 on an empty change, never leak existence", () => {
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;

  const call = httpAnswerCaller(() => server.url);

  /** Status, body and the headers a client could tell answers apart by. */
  async function answer(method: string, path: string, token?: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const headers = ["content-type", "www-authenticate", "cache-control"].map((name) => [
      name,
      response.headers.get(name),
    ]);
    return { status: response.status, body: await response.json(), headers: Object.fromEntries(headers) };
  }

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, plugins: [spy] });
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  describe("finding 5: a PUT that changes nothing answers 200 with the resource unchanged", () => {
    it("service hook: {} and unknown-only fields → 200, row untouched", async () => {
      await instance.faultline.api.projects.create({
        organization: "acme",
        slug: "hooked",
        features: ["servicehooks"],
      });
      const created = await call("POST", "/api/0/projects/acme/hooked/hooks/", acme.allScopesToken, {
        url: PUBLIC_URL,
        events: ["event.created"],
      });
      expect(created.status).toBe(201);
      const { secret: _secret, ...hook } = created.body;
      for (const body of [{}, { nothing: "known" }]) {
        const updated = await call("PUT", `/api/0/projects/acme/hooked/hooks/${hook.id}/`, acme.allScopesToken, body);
        expect(updated.status, JSON.stringify(body)).toBe(200);
        expect(updated.body).toEqual(hook);
      }
      expect((await call("GET", `/api/0/projects/acme/hooked/hooks/${hook.id}/`, acme.allScopesToken)).body).toEqual(
        hook,
      );
      // A hook of another organization is still a 404, empty body or not.
      expect(
        (await call("PUT", `/api/0/projects/globex/hooked/hooks/${hook.id}/`, globex.allScopesToken, {})).status,
      ).toBe(404);
    });

    it("issue: {} → 200, no activity, no domain event; a comment edited to the same text → no comment.updated", async () => {
      const capture = captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id });
      await capture(errorEvent({ fingerprint: ["unchanged"] }));
      const [issue] = (await call("GET", "/api/0/organizations/acme/issues/?query=", acme.allScopesToken)).body;
      const before = emitted.length;
      const updated = await call("PUT", `/api/0/organizations/acme/issues/${issue.id}/`, acme.allScopesToken, {});
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ id: issue.id, status: issue.status });
      const comment = await call(
        "POST",
        `/api/0/organizations/acme/issues/${issue.id}/comments/`,
        acme.allScopesToken,
        { text: "same" },
      );
      expect(comment.status).toBe(201);
      const edited = await call(
        "PUT",
        `/api/0/organizations/acme/issues/${issue.id}/comments/${comment.body.id}/`,
        acme.allScopesToken,
        { text: "same" },
      );
      expect(edited.status).toBe(200);
      expect(edited.body).toEqual(comment.body);
      expect(emitted.slice(before)).toEqual([]);
      // A real edit still is one.
      const changed = await call(
        "PUT",
        `/api/0/organizations/acme/issues/${issue.id}/comments/${comment.body.id}/`,
        acme.allScopesToken,
        { text: "different" },
      );
      expect(changed.body.text).toBe("different");
      expect(emitted.slice(before)).toEqual(["comment.updated"]);
    });

    it("issue and metric alert rules, apps: {} → 200 unchanged", async () => {
      const rule = await call("POST", "/api/0/projects/acme/web/rules/", acme.allScopesToken, {
        name: "New",
        conditions: [{ id: "first_seen_event" }],
      });
      expect(rule.status).toBe(201);
      expect(await call("PUT", `/api/0/projects/acme/web/rules/${rule.body.id}/`, acme.allScopesToken, {})).toEqual({
        status: 200,
        body: rule.body,
      });

      const metric = await call("POST", "/api/0/organizations/acme/alert-rules/", acme.allScopesToken, {
        name: "Burst",
        projects: ["web"],
        query: "level:error",
        timeWindow: 5,
        triggers: [{ label: "critical", alertThreshold: 6 }],
      });
      expect(metric.status, JSON.stringify(metric.body)).toBe(201);
      expect(
        await call("PUT", `/api/0/organizations/acme/alert-rules/${metric.body.id}/`, acme.allScopesToken, {}),
      ).toEqual({ status: 200, body: metric.body });

      const app = await call("POST", "/api/0/svc-apps/", acme.allScopesToken, {
        organization: "acme",
        name: "Unchanged",
        slug: "unchanged",
      });
      expect(app.status).toBe(201);
      const shown = await call("GET", "/api/0/svc-apps/unchanged/", acme.allScopesToken);
      expect(await call("PUT", "/api/0/svc-apps/unchanged/", acme.allScopesToken, {})).toEqual(shown);
    });

    it("in-process organization update with nothing to set → the organization unchanged", async () => {
      const before = await instance.faultline.api.organizations.get("acme");
      await expect(instance.faultline.api.organizations.update("acme", {})).resolves.toEqual(before);
    });
  });

  describe("finding 6: a blank, malformed or unknown filter never widens a bulk change", () => {
    const bulk = (org: string) => `/api/0/organizations/${org}/issues/`;
    /** Every issue of both organizations: id, status and whether it is deleted. */
    const snapshot = () =>
      instance.faultline.container
        .resolve(tokens.Db)
        .selectFrom("issues")
        .select(["id", "organization_id", "status", "deleted_at"])
        .orderBy("id")
        .execute();
    let staging: string;

    beforeAll(async () => {
      for (const [seeded, org] of [
        [acme, "acme"],
        [globex, "globex"],
      ] as const) {
        const capture = captureFor(instance.faultline, {
          id: seeded.project.id,
          organizationId: seeded.organization.id,
        });
        for (const environment of ["prod", "prod", "staging"])
          await capture(errorEvent({ environment, fingerprint: [`${org}-${environment}-${Math.random()}`] }));
      }
      const found = await call("GET", `${bulk("acme")}?environment=staging&query=`, acme.allScopesToken);
      expect(found.body).toHaveLength(1);
      staging = found.body[0].id;
    });

    // [query string, the parameter the 400 must name]
    const refused: Array<[string, string]> = [
      ["environment=", "environment"],
      ["environment=&environment=", "environment"],
      ["environment=%20", "environment"],
      ["environment=prod&environment=", "environment"],
      ["id=", "id"],
      ["id=%20", "id"],
      ["id=abc", "id"],
      ["id=1&id=", "id"],
      ["project=", "project"],
      ["project=%20", "project"],
      ["project=web", "project"],
      ["status=", "status"],
      ["status=%20", "status"],
      ["status=bogus", "status"],
      ["status=resolved&status=", "status"],
      ["query=", "query"],
      ["query=%20%20", "query"],
      ["query=is:bogus", "query"],
      ["query=environment:", "query"],
      ["assignee=", "assignee"],
      ["assignee=%20", "assignee"],
      // A misspelt or unknown parameter would silently select everything unresolved.
      ["ids=1", "ids"],
      ["environments=staging", "environments"],
      ["%20id=1", " id"],
    ];

    it("PUT and DELETE with each bad filter → 400 naming the parameter; no issue of any organization changed", async () => {
      const before = await snapshot();
      expect(
        before.filter((row) => row.status === "unresolved" && row.deleted_at === null).length,
      ).toBeGreaterThanOrEqual(6);
      for (const [params, parameter] of refused) {
        for (const [method, body] of [
          ["PUT", { status: "resolved" }],
          ["DELETE", undefined],
        ] as const) {
          const response = await call(method, `${bulk("acme")}?${params}`, acme.allScopesToken, body);
          expect(response.status, `${method} ?${params}`).toBe(400);
          expect(typeof response.body.detail, `${method} ?${params}`).toBe("string");
          // The parameter, or one of its values (`id.0`).
          const named = Object.keys(response.body.errors ?? {}).map((field) => field.replace(/\.\d+$/, ""));
          expect(named, `${method} ?${params}: ${JSON.stringify(response.body)}`).toContain(parameter);
        }
      }
      expect(await snapshot()).toEqual(before);
    });

    it("a real filter still selects exactly its issues (the check above can see a change)", async () => {
      const before = await snapshot();
      const resolved = await call("PUT", `${bulk("acme")}?environment=staging`, acme.allScopesToken, {
        status: "resolved",
      });
      expect(resolved.status).toBe(200);
      const after = await snapshot();
      const changed = after.filter((row, index) => row.status !== before[index]?.status).map((row) => String(row.id));
      expect(changed).toEqual([staging]);
      // List-only parameters (paging, sort, stats) are accepted and select nothing more.
      const deleted = await call(
        "DELETE",
        `${bulk("acme")}?environment=staging&status=resolved&sort=new&limit=1&statsPeriod=14d&cursor=x`,
        acme.allScopesToken,
      );
      expect(deleted.status).toBe(204);
      const gone = (await snapshot())
        .filter((row) => row.deleted_at !== null && before.find((old) => old.id === row.id)?.deleted_at === null)
        .map((row) => String(row.id));
      expect(gone).toEqual([staging]);
    });
  });

  describe("finding 9: the OAuth exchange is no existence oracle", () => {
    it("an installation elsewhere, a deleted one, an unknown or malformed uuid: one answer, 401", async () => {
      const { api } = instance.faultline;
      // The prober owns an app of its own, so it holds valid client credentials — just not for these.
      const probe = await api.apps.create({ organization: "acme", name: "Probe", slug: "probe" });
      const tracker = await api.apps.create({ organization: "globex", name: "Tracker", slug: "tracker" });
      const elsewhere = await api.installations.install({ organization: "globex", app: "tracker" });
      await api.apps.create({ organization: "globex", name: "Doomed", slug: "doomed" });
      const deleted = await api.installations.install({ organization: "globex", app: "doomed" });
      await api.apps.delete("doomed");

      const uuids = [
        elsewhere.uuid,
        deleted.uuid,
        "00000000-0000-4000-8000-000000000000",
        "nope",
        elsewhere.uuid.toUpperCase(),
      ];
      for (const grant of [
        { grant_type: "authorization_code", code: elsewhere.code },
        { grant_type: "refresh_token", refresh_token: "r".repeat(48) },
      ]) {
        const answers = [];
        for (const uuid of uuids) {
          answers.push(
            await answer("POST", `/api/0/svc-app-installations/${uuid}/authorizations/`, undefined, {
              ...grant,
              client_id: probe.clientId,
              client_secret: probe.clientSecret,
            }),
          );
        }
        for (const [index, reply] of answers.entries()) {
          expect(reply, `${grant.grant_type} ${uuids[index]}`).toEqual({
            status: 401,
            body: { detail: "Invalid client credentials" },
            headers: answers[0]?.headers,
          });
        }
      }
      // The app's own credentials still buy a token for its installation: the check above can pass.
      const own = await call("POST", `/api/0/svc-app-installations/${elsewhere.uuid}/authorizations/`, undefined, {
        grant_type: "authorization_code",
        code: elsewhere.code,
        client_id: tracker.clientId,
        client_secret: tracker.clientSecret,
      });
      expect(own.status).toBe(201);
    });
  });

  describe("finding 10: a SCIM token outside SCIM endpoints", () => {
    it("→ 403 saying SCIM tokens only open SCIM endpoints, the same for its own organization, another or none", async () => {
      const { api } = instance.faultline;
      await api.organizations.update("acme", { samlConfigured: true });
      const scim = await api.scim.enable("acme");
      const paths = [
        "/api/0/organizations/acme/",
        "/api/0/organizations/acme/issues/",
        "/api/0/organizations/globex/",
        "/api/0/organizations/no-such-org/",
        "/api/0/api-tokens/",
      ];
      for (const path of paths) {
        const reply = await call("GET", path, scim.token);
        expect(reply, path).toEqual({
          status: 403,
          body: { detail: "SCIM tokens only open SCIM endpoints (/api/0/organizations/{organization}/scim/v2/…)" },
        });
      }
      // …and it still opens its own.
      expect(
        (await fetch(`${server.url}/api/0/organizations/acme/scim/v2/Users`, { headers: bearer(scim.token) })).status,
      ).toBe(200);
    });
  });
});
