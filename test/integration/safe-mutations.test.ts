import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

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

  async function call(method: string, path: string, token?: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
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
      await instance.faultline.api.projects.create({ organization: "acme", slug: "hooked", features: ["servicehooks"] });
      const created = await call("POST", "/api/0/projects/acme/hooked/hooks/", acme.allScopesToken, { url: PUBLIC_URL, events: ["event.created"] });
      expect(created.status).toBe(201);
      const { secret: _secret, ...hook } = created.body;
      for (const body of [{}, { nothing: "known" }]) {
        const updated = await call("PUT", `/api/0/projects/acme/hooked/hooks/${hook.id}/`, acme.allScopesToken, body);
        expect(updated.status, JSON.stringify(body)).toBe(200);
        expect(updated.body).toEqual(hook);
      }
      expect((await call("GET", `/api/0/projects/acme/hooked/hooks/${hook.id}/`, acme.allScopesToken)).body).toEqual(hook);
      // A hook of another organization is still a 404, empty body or not.
      expect((await call("PUT", `/api/0/projects/globex/hooked/hooks/${hook.id}/`, globex.allScopesToken, {})).status).toBe(404);
    });

    it("issue: {} → 200, no activity, no domain event; a comment edited to the same text → no comment.updated", async () => {
      const capture = captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id });
      await capture(errorEvent({ fingerprint: ["unchanged"] }));
      const [issue] = (await call("GET", "/api/0/organizations/acme/issues/?query=", acme.allScopesToken)).body;
      const before = emitted.length;
      const updated = await call("PUT", `/api/0/organizations/acme/issues/${issue.id}/`, acme.allScopesToken, {});
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ id: issue.id, status: issue.status });
      const comment = await call("POST", `/api/0/organizations/acme/issues/${issue.id}/comments/`, acme.allScopesToken, { text: "same" });
      expect(comment.status).toBe(201);
      const edited = await call("PUT", `/api/0/organizations/acme/issues/${issue.id}/comments/${comment.body.id}/`, acme.allScopesToken, { text: "same" });
      expect(edited.status).toBe(200);
      expect(edited.body).toEqual(comment.body);
      expect(emitted.slice(before)).toEqual([]);
      // A real edit still is one.
      const changed = await call("PUT", `/api/0/organizations/acme/issues/${issue.id}/comments/${comment.body.id}/`, acme.allScopesToken, { text: "different" });
      expect(changed.body.text).toBe("different");
      expect(emitted.slice(before)).toEqual(["comment.updated"]);
    });

    it("issue and metric alert rules, apps: {} → 200 unchanged", async () => {
      const rule = await call("POST", "/api/0/projects/acme/web/rules/", acme.allScopesToken, { name: "New", conditions: [{ id: "first_seen_event" }] });
      expect(rule.status).toBe(201);
      expect(await call("PUT", `/api/0/projects/acme/web/rules/${rule.body.id}/`, acme.allScopesToken, {})).toEqual({ status: 200, body: rule.body });

      const metric = await call("POST", "/api/0/organizations/acme/alert-rules/", acme.allScopesToken, {
        name: "Burst",
        projects: ["web"],
        query: "level:error",
        timeWindow: 5,
        triggers: [{ label: "critical", alertThreshold: 6 }],
      });
      expect(metric.status, JSON.stringify(metric.body)).toBe(201);
      expect(await call("PUT", `/api/0/organizations/acme/alert-rules/${metric.body.id}/`, acme.allScopesToken, {})).toEqual({ status: 200, body: metric.body });

      const app = await call("POST", "/api/0/svc-apps/", acme.allScopesToken, { organization: "acme", name: "Unchanged", slug: "unchanged" });
      expect(app.status).toBe(201);
      const shown = await call("GET", "/api/0/svc-apps/unchanged/", acme.allScopesToken);
      expect(await call("PUT", "/api/0/svc-apps/unchanged/", acme.allScopesToken, {})).toEqual(shown);
    });

    it("in-process organization update with nothing to set → the organization unchanged", async () => {
      const before = await instance.faultline.api.organizations.get("acme");
      await expect(instance.faultline.api.organizations.update("acme", {})).resolves.toEqual(before);
    });
  });
});
