import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline, httpCaller } from "../helpers/server.js";

describe("external issue links (platform.md §2)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  /** Installations: the tracker app in acme and in globex, another app in acme. */
  const inst = {
    tracker: { uuid: "", token: "" },
    trackerGlobex: { uuid: "", token: "" },
    other: { uuid: "", token: "" },
  };
  /** Issues: acme/web, acme/api, globex/web. */
  const issue = { web: "", api: "", globex: "" };

  const call = httpCaller(() => server.url);
  const links = (uuid: string) => `/api/0/svc-app-installations/${uuid}/external-issues/`;
  const link = (uuid: string, token: string, body: unknown) => call("POST", links(uuid), token, body);
  const valid = (overrides: Record<string, unknown> = {}) => ({
    issueId: Number(issue.web),
    webUrl: "https://tracker.test/TRK-1",
    project: "web",
    identifier: "TRK-1",
    ...overrides,
  });

  async function installWithToken(org: string, slug: string, creds: { clientId: string; clientSecret: string }) {
    const installed = await instance.faultline.api.installations.install({ organization: org, app: slug });
    const exchanged = await call("POST", `/api/0/svc-app-installations/${installed.uuid}/authorizations/`, undefined, {
      grant_type: "authorization_code",
      code: installed.code,
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
    });
    return { uuid: installed.uuid, token: exchanged.body.token as string };
  }

  async function issueOf(org: { id: string | number }, project: { id: string | number }, fingerprint: string) {
    const { eventId } = await captureFor(instance.faultline, { id: project.id, organizationId: org.id })(
      errorEvent({ fingerprint: [fingerprint] }),
    );
    const row = await instance.faultline.container
      .resolve(tokens.Db)
      .selectFrom("events")
      .select("issue_id")
      .where("event_id", "=", eventId)
      .executeTakeFirstOrThrow();
    return String(row.issue_id);
  }

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    const { api } = instance.faultline;
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    server = await serveFaultline(instance.faultline);
    const apiProject = await api.projects.create({ organization: "acme", slug: "api" });
    issue.web = await issueOf(acme.organization, acme.project, "web");
    issue.api = await issueOf(acme.organization, apiProject, "api");
    issue.globex = await issueOf(globex.organization, globex.project, "globex");
    const tracker = await api.apps.create({
      organization: "globex",
      name: "Tracker",
      slug: "tracker",
      scopes: ["event:admin"],
    });
    const other = await api.apps.create({
      organization: "acme",
      name: "Other",
      slug: "other",
      scopes: ["event:write"],
    });
    inst.tracker = await installWithToken("acme", "tracker", tracker);
    inst.trackerGlobex = await installWithToken("globex", "tracker", tracker);
    inst.other = await installWithToken("acme", "other", other);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("creates a link (201) with the documented object", async () => {
    const created = await link(inst.tracker.uuid, inst.tracker.token, valid());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      issueId: issue.web,
      webUrl: "https://tracker.test/TRK-1",
      project: "web",
      identifier: "TRK-1",
      serviceType: "tracker",
      displayName: "web#TRK-1",
    });
  });

  it("updates the installation's link to the same issue (200): at most one per installation per issue", async () => {
    const [before] = (await call("GET", links(inst.tracker.uuid), inst.tracker.token)).body;
    const updated = await link(
      inst.tracker.uuid,
      inst.tracker.token,
      valid({ issueId: issue.web, identifier: "TRK-2", webUrl: "http://tracker.test/TRK-2" }),
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: before.id,
      identifier: "TRK-2",
      webUrl: "http://tracker.test/TRK-2",
      displayName: "web#TRK-2",
    });
    const listed = await call("GET", links(inst.tracker.uuid), inst.tracker.token);
    expect(listed.body).toHaveLength(1);
    // Another installation links the same issue separately.
    const fromOther = await link(inst.other.uuid, inst.other.token, valid({ identifier: "OTH-9" }));
    expect(fromOther.status).toBe(201);
    expect(fromOther.body.serviceType).toBe("other");
  });

  it("accepts a user or organization-bound token of the installation's organization", async () => {
    const byUser = await link(
      inst.tracker.uuid,
      acme.allScopesToken,
      valid({ issueId: Number(issue.api), project: "api", identifier: "TRK-3" }),
    );
    expect(byUser.status).toBe(201);
    expect(byUser.body.displayName).toBe("api#TRK-3");
    const orgToken = (await instance.faultline.api.tokens.create({ organization: "acme", scopes: ["event:read"] }))
      .token;
    const listed = await call("GET", links(inst.tracker.uuid), orgToken);
    expect(listed.status).toBe(200);
    expect(listed.body.map((l: { identifier: string }) => l.identifier)).toEqual(["TRK-3", "TRK-2"]);
  });

  it("lists only this installation's links, newest first, paginated", async () => {
    const first = await call("GET", `${links(inst.tracker.uuid)}?per_page=1`, inst.tracker.token);
    expect(first.body).toHaveLength(1);
    expect(first.headers.get("x-per-page")).toBe("1");
    const next = /<([^>]+)>; rel="next"; results="true"/.exec(first.headers.get("link") ?? "")?.[1] as string;
    const second = await (await fetch(next, { headers: bearer(inst.tracker.token) })).json();
    expect([...first.body, ...second].map((l: { identifier: string }) => l.identifier)).toEqual(["TRK-3", "TRK-2"]);
    const other = await call("GET", links(inst.other.uuid), inst.other.token);
    expect(other.body.map((l: { identifier: string }) => l.identifier)).toEqual(["OTH-9"]);
    expect((await call("GET", `${links(inst.tracker.uuid)}?per_page=abc`, inst.tracker.token)).status).toBe(400);
  });

  it("shows links in the issue's external-issues list and in is:linked / is:unlinked search", async () => {
    const perIssue = await call(
      "GET",
      `/api/0/organizations/acme/issues/${issue.web}/external-issues/`,
      acme.allScopesToken,
    );
    expect(
      perIssue.body
        .map((l: { serviceType: string; displayName: string }) => `${l.serviceType}:${l.displayName}`)
        .sort(),
    ).toEqual(["other:web#OTH-9", "tracker:web#TRK-2"]);
    const linked = await call("GET", "/api/0/organizations/acme/issues/?query=is:linked", acme.allScopesToken);
    expect(linked.body.map((i: { id: string }) => i.id).sort()).toEqual([issue.web, issue.api].sort());
    await link(inst.tracker.uuid, inst.tracker.token, valid());
    const unlinked = await call("GET", "/api/0/organizations/acme/issues/?query=is:unlinked", acme.allScopesToken);
    expect(unlinked.body.map((i: { id: string }) => i.id)).not.toContain(issue.web);
  });

  it("answers 404 to anyone who cannot act in the installation's organization", async () => {
    const path = links(inst.tracker.uuid);
    // Another installation's token — of another organization, or of the same one.
    expect((await call("GET", path, inst.trackerGlobex.token)).status).toBe(404);
    expect((await link(inst.tracker.uuid, inst.trackerGlobex.token, valid())).status).toBe(404);
    expect((await call("GET", path, inst.other.token)).status).toBe(404);
    expect((await link(inst.tracker.uuid, inst.other.token, valid())).status).toBe(404);
    // A user or organization token of another organization; even without the scope it is a 404, not a 403.
    expect((await call("GET", path, globex.allScopesToken)).status).toBe(404);
    expect((await link(inst.tracker.uuid, globex.allScopesToken, valid())).status).toBe(404);
    expect((await call("GET", path, globex.orgBoundToken)).status).toBe(404);
    // Unknown installations.
    expect((await call("GET", links("00000000-0000-4000-8000-000000000000"), acme.allScopesToken)).status).toBe(404);
    const malformed = await call("GET", links("nope"), acme.allScopesToken);
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({ detail: "The requested resource does not exist" });
    expect((await call("GET", path)).status).toBe(401);
  });

  it("needs event:read to list, event:write to link and event:admin to delete (403)", async () => {
    const noEvent = await call("GET", links(inst.tracker.uuid), acme.orgBoundToken);
    expect(noEvent.status).toBe(403);
    expect(noEvent.body).toEqual({
      detail: "You do not have permission to perform this action.",
      requiredScopes: ["event:read"],
    });
    expect(noEvent.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="event:read"');
    const readOnly = await link(inst.tracker.uuid, acme.eventReadToken, valid());
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.requiredScopes).toEqual(["event:write"]);
    const [otherLink] = (await call("GET", links(inst.other.uuid), inst.other.token)).body;
    const deleteWithWrite = await call("DELETE", `${links(inst.other.uuid)}${otherLink.id}/`, inst.other.token);
    expect(deleteWithWrite.status).toBe(403);
    expect(deleteWithWrite.body.requiredScopes).toEqual(["event:admin"]);
  });

  it("400 when the issue is not one of the organization's", async () => {
    const foreignIssue = await link(inst.tracker.uuid, inst.tracker.token, valid({ issueId: Number(issue.globex) }));
    expect(foreignIssue.status).toBe(400);
    expect(Object.keys(foreignIssue.body.errors)).toEqual(["issueId"]);
    // Even through the globex installation's own token, an acme issue is not linkable there.
    const crossed = await link(inst.trackerGlobex.uuid, inst.trackerGlobex.token, valid());
    expect(crossed.status).toBe(400);
    expect(Object.keys(crossed.body.errors)).toEqual(["issueId"]);
    const unknown = await link(inst.tracker.uuid, inst.tracker.token, valid({ issueId: 987654321 }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/^Invalid request: issueId: /);
    // Nothing was written by the refusals.
    const listed = await call("GET", links(inst.trackerGlobex.uuid), inst.trackerGlobex.token);
    expect(listed.body).toEqual([]);
  });

  it("project is the external tracker's project (Sentry's meaning), kept as sent; links from before show the issue's project slug", async () => {
    const linked = await link(
      inst.trackerGlobex.uuid,
      inst.trackerGlobex.token,
      valid({ issueId: Number(issue.globex), project: " JIRA-PROJ ", identifier: "JIRA-PROJ-7" }),
    );
    expect(linked.status).toBe(201);
    expect(linked.body).toMatchObject({ project: "JIRA-PROJ", displayName: "JIRA-PROJ#JIRA-PROJ-7" });
    // Updating the link may move it to another external project.
    const moved = await link(
      inst.trackerGlobex.uuid,
      inst.trackerGlobex.token,
      valid({ issueId: Number(issue.globex), project: "OPS", identifier: "OPS-1" }),
    );
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: linked.body.id, project: "OPS", displayName: "OPS#OPS-1" });
    const [onIssue] = (
      await call("GET", `/api/0/organizations/globex/issues/${issue.globex}/external-issues/`, globex.allScopesToken)
    ).body;
    expect(onIssue).toEqual(moved.body);
    // A link stored before the project was kept reads as it always did: the issue's project slug.
    const db = instance.faultline.container.resolve(tokens.Db);
    await db.updateTable("external_issues").set({ project: null }).where("id", "=", Number(linked.body.id)).execute();
    const [old] = (await call("GET", links(inst.trackerGlobex.uuid), inst.trackerGlobex.token)).body;
    expect(old).toMatchObject({ project: "web", displayName: "web#OPS-1" });
  });

  it("400 with field errors for missing or malformed fields", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ issueId: undefined }, "issueId"],
      [{ issueId: "abc" }, "issueId"],
      [{ issueId: 1.5 }, "issueId"],
      [{ issueId: -3 }, "issueId"],
      [{ issueId: 1e20 }, "issueId"],
      [{ webUrl: undefined }, "webUrl"],
      [{ webUrl: "javascript:alert(1)" }, "webUrl"],
      [{ webUrl: "not a url" }, "webUrl"],
      [{ project: undefined }, "project"],
      [{ project: "" }, "project"],
      [{ project: "   " }, "project"],
      [{ identifier: undefined }, "identifier"],
      [{ identifier: "" }, "identifier"],
      [{ identifier: "x".repeat(201) }, "identifier"],
      [{ identifier: 7 }, "identifier"],
    ];
    for (const [overrides, field] of cases) {
      const response = await link(inst.tracker.uuid, inst.tracker.token, valid(overrides));
      expect(response.status, JSON.stringify(overrides)).toBe(400);
      expect(Object.keys(response.body.errors), JSON.stringify(overrides)).toEqual([field]);
      expect(response.body.detail).toMatch(new RegExp(`^Invalid request: ${field.replace(".", "\\.")}: `));
    }
    expect((await link(inst.tracker.uuid, inst.tracker.token, "{")).status).toBe(400);
    expect((await link(inst.tracker.uuid, inst.tracker.token, [])).status).toBe(400);
    expect((await link(inst.tracker.uuid, inst.tracker.token, valid({ identifier: "x".repeat(200) }))).status).toBe(
      200,
    );
  });

  it("deletes a link (204); an unknown id or another installation's link is a 404", async () => {
    const [own] = (await call("GET", links(inst.tracker.uuid), inst.tracker.token)).body;
    const [others] = (await call("GET", links(inst.other.uuid), inst.other.token)).body;
    expect((await call("DELETE", `${links(inst.tracker.uuid)}${others.id}/`, inst.tracker.token)).status).toBe(404);
    expect((await call("DELETE", `${links(inst.tracker.uuid)}${others.id}/`, acme.allScopesToken)).status).toBe(404);
    expect((await call("DELETE", `${links(inst.tracker.uuid)}999999/`, inst.tracker.token)).status).toBe(404);
    expect((await call("DELETE", `${links(inst.tracker.uuid)}abc/`, inst.tracker.token)).status).toBe(404);
    expect((await call("DELETE", `${links(inst.tracker.uuid)}${own.id}/`, globex.allScopesToken)).status).toBe(404);
    expect((await call("DELETE", `${links(inst.tracker.uuid)}${own.id}/`, inst.tracker.token)).status).toBe(204);
    expect((await call("DELETE", `${links(inst.tracker.uuid)}${own.id}/`, inst.tracker.token)).status).toBe(404);
    const remaining = (await call("GET", links(inst.tracker.uuid), inst.tracker.token)).body.map(
      (l: { id: string }) => l.id,
    );
    expect(remaining).not.toContain(own.id);
    // The other installation's link is untouched.
    expect((await call("GET", links(inst.other.uuid), inst.other.token)).body.map((l: { id: string }) => l.id)).toEqual(
      [others.id],
    );
  });
});
