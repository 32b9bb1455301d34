import { afterEach, describe, expect, it } from "vitest";
import { createFaultline, definePlugin, SCOPES, tokens } from "../../src/index.js";
import { createTestInstance } from "../../src/testing/index.js";
import { verifySignature, verifyStandardWebhook } from "../../src/verify.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { type ReceivedRequest, type Reply, startReceiver } from "../helpers/receiver.js";
import { bearer, inProcess } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";
import { silentLogger } from "../../src/logging/logger.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An instance with an app subscribed to every category and a receiver behind its webhook URL. */
async function setup(
  script: Reply[] = [],
  options: Parameters<typeof createTestInstance>[0] = {},
  events: Array<"issue" | "error" | "comment" | "installation"> = ["issue", "error", "comment", "installation"],
) {
  const receiver = await startReceiver(script);
  const instance = await createTestInstance({
    announce: false,
    ...options,
    // A receipt slower than timeoutMs is retried and arrives twice: generous, since a loaded CI
    // machine (and PGlite's queries on this same thread) can delay a local answer by a second.
    delivery: {
      allowPrivateNetworks: true,
      pollIntervalMs: 20,
      retryDelays: [0.05, 0.05, 0.05],
      timeoutMs: 3_000,
      ...options.delivery,
    },
  });
  cleanups.push(receiver.close, instance.close);
  const { api } = instance.faultline;
  const org = await api.organizations.create({ slug: "acme" });
  const owner = await api.users.create({ username: "ada", name: "Ada" });
  await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
  const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
  const app = await api.apps.create({
    organization: "acme",
    name: "Tracker",
    slug: "tracker",
    isInternal: true,
    webhookUrl: `${receiver.url}/app`,
    events,
    scopes: ["event:read"],
  });
  const token = (await api.tokens.create({ user: owner.id, scopes: [...SCOPES] })).token;
  const capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
  const db = instance.faultline.container.resolve(tokens.Db);
  /** A request through the real HTTP pipeline as the owner. */
  const http = inProcess(instance.faultline, token);
  return { instance, receiver, app, token, capture, db, org, project, owner, http };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SYSTEM = { type: "application", id: "svc", name: "svc" };

/**
 * What every app webhook must satisfy (platform.md §4 headers, §5.1–5.2 signatures): both
 * signatures verified by `faultline/verify` from the raw body bytes, the documented headers,
 * and the envelope `{action, installation: {uuid}, data, actor}`.
 */
function expectAppWebhook(
  request: ReceivedRequest,
  secret: string,
  expected: { resource: string; action: string; installation: string },
) {
  const raw = Buffer.from(request.body, "utf8");
  const headers = request.headers as Record<string, string>;
  // The bytes re-encoded here are the bytes sent: same length as the header announced.
  expect(Number(headers["content-length"])).toBe(raw.length);
  expect(headers["content-type"]).toBe("application/json");
  expect(headers["svc-hook-resource"]).toBe(expected.resource);
  expect(headers["request-id"]).toMatch(UUID);
  expect(headers["request-id"]).toBe(headers["webhook-id"]);
  expect(headers["svc-hook-timestamp"]).toMatch(/^\d{10}$/);
  expect(headers["svc-hook-timestamp"]).toBe(headers["webhook-timestamp"]);
  expect(Math.abs(Number(headers["svc-hook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
  expect(headers["svc-hook-signature"]).toMatch(/^[0-9a-f]{64}$/);
  expect(verifySignature(raw, headers["svc-hook-signature"], secret)).toBe(true);
  expect(verifySignature(Buffer.concat([raw, Buffer.from(" ")]), headers["svc-hook-signature"], secret)).toBe(false);
  expect(verifyStandardWebhook(raw, headers, secret)).toBe(true);
  expect(verifyStandardWebhook(raw, headers, `${secret.slice(0, -4)}AAAA`)).toBe(false);
  expect(Object.keys(request.json).sort()).toEqual(["action", "actor", "data", "installation"]);
  expect(request.json.action).toBe(expected.action);
  expect(request.json.installation).toEqual({ uuid: expected.installation });
}

const ofType = (requests: ReceivedRequest[], resource: string, action: string) =>
  requests.filter((r) => r.headers["svc-hook-resource"] === resource && r.json.action === action);
const dataOf = <T = Record<string, unknown>>(request: ReceivedRequest | undefined) => request?.json.data as T;

const deliveriesOf = (db: Awaited<ReturnType<typeof setup>>["db"], eventType: string) =>
  db.selectFrom("deliveries").selectAll().where("event_type", "=", eventType).execute();

describe("app webhooks", { timeout: 60_000 }, () => {
  it("deliver issue, error and installation events with the documented envelope, headers and signatures", async () => {
    const links = {
      publicUrl: "https://faultline.example/",
      permalinkTemplate: "https://app.example/{organization}/issues/{shortId}/",
    };
    const { receiver, app, capture, owner, project, http } = await setup([], links);
    const installation = app.installation?.uuid as string;
    const { eventId } = await capture(errorEvent({ fingerprint: ["app-hooks"] }));
    await receiver.until((all) => ofType(all, "issue", "created").length > 0);
    const issueId = dataOf<{ issue: { id: string } }>(ofType(receiver.received, "issue", "created")[0]).issue.id;
    expect(
      (await http("PUT", `/api/0/organizations/acme/issues/${issueId}/`, { status: "resolved", assignedTo: "ada" }))
        .status,
    ).toBe(200);
    const all = await receiver.until((requests) => requests.length >= 5);
    const one = (resource: string, action: string) => {
      const found = ofType(all, resource, action);
      expect(found, `${resource}.${action}`).toHaveLength(1);
      expectAppWebhook(found[0] as ReceivedRequest, app.clientSecret, { resource, action, installation });
      return found[0]?.json as { actor: unknown; data: Record<string, unknown> };
    };

    // installation.created: the one-time grant code of the installation, usable in the OAuth exchange.
    const installed = one("installation", "created");
    expect(installed.actor).toEqual(SYSTEM);
    expect(installed.data).toEqual({
      installation: {
        uuid: installation,
        app: { uuid: app.uuid, slug: "tracker" },
        organization: { slug: "acme" },
        status: "installed",
        code: expect.any(String),
      },
    });
    const code = (installed.data.installation as { code: string }).code;
    expect(code).toBe(app.installation?.code);
    const exchange = await http("POST", `/api/0/svc-app-installations/${installation}/authorizations/`, {
      grant_type: "authorization_code",
      code,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    expect(exchange.status).toBe(201);

    // issue.created: the seed's fields, as the issue API reports them, count an integer, plus links.
    const created = one("issue", "created");
    expect(created.actor).toEqual(SYSTEM);
    expect(Object.keys(created.data)).toEqual(["issue"]);
    const issue = created.data.issue as Record<string, unknown>;
    const apiIssue = (await http("GET", `/api/0/organizations/acme/issues/${issueId}/`)).body;
    expect(issue).toMatchObject({
      id: apiIssue.id,
      shortId: "WEB-1",
      title: apiIssue.title,
      culprit: apiIssue.culprit,
      level: "error",
      status: "unresolved",
      firstSeen: apiIssue.firstSeen,
      lastSeen: apiIssue.lastSeen,
      count: 1,
      project: { id: String(project.id), name: project.name, slug: "web" },
      url: `https://faultline.example/api/0/organizations/acme/issues/${issueId}/`,
      web_url: "https://app.example/acme/issues/WEB-1/",
      project_url: "https://faultline.example/api/0/projects/acme/web/",
    });
    expect(issue.id).toMatch(/^\d+$/);
    expect(issue.title).toEqual(expect.stringContaining("TypeError"));
    expect(typeof issue.culprit).toBe("string");
    expect(issue.firstSeen).toMatch(ISO);
    expect(issue.lastSeen).toMatch(ISO);
    expect(Number.isInteger(issue.count)).toBe(true);

    // error.created: the event as sent, plus where to find it.
    const error = one("error", "created");
    expect(error.actor).toEqual(SYSTEM);
    expect(Object.keys(error.data)).toEqual(["error"]);
    expect(error.data.error).toMatchObject({
      event_id: eventId,
      platform: "node",
      exception: errorEvent().exception,
      issue_id: issueId,
      url: `https://faultline.example/api/0/projects/acme/web/events/${eventId}/`,
      web_url: "https://app.example/acme/issues/WEB-1/",
      issue_url: `https://faultline.example/api/0/organizations/acme/issues/${issueId}/`,
    });

    const userActor = { type: "user", id: String(owner.id), name: "Ada" };
    const resolved = one("issue", "resolved");
    expect(resolved).toMatchObject({
      actor: userActor,
      data: { issue: { id: issueId, status: "resolved" }, resolution_type: "now" },
    });
    expect(Object.keys(resolved.data).sort()).toEqual(["issue", "resolution_type"]);
    const assigned = one("issue", "assigned");
    expect(assigned).toMatchObject({
      actor: userActor,
      data: { issue: { id: issueId }, assignee: { type: "user", id: String(owner.id), name: "ada" } },
    });
    expect(Object.keys(assigned.data).sort()).toEqual(["assignee", "issue"]);
  });

  it("deliver issue.ignored and issue.unresolved (manual and regression) to a real receiver", async () => {
    const { receiver, app, capture, owner, http } = await setup([], {}, ["issue"]);
    const installation = app.installation?.uuid as string;
    await capture(errorEvent({ fingerprint: ["workflow"] }));
    await receiver.until((all) => ofType(all, "issue", "created").length > 0);
    const issueId = dataOf<{ issue: { id: string } }>(ofType(receiver.received, "issue", "created")[0]).issue.id;
    const setStatus = async (status: string) =>
      expect((await http("PUT", `/api/0/organizations/acme/issues/${issueId}/`, { status })).status).toBe(200);
    const userActor = { type: "user", id: String(owner.id), name: "Ada" };

    await setStatus("ignored");
    const [ignored] = await receiver
      .until((all) => ofType(all, "issue", "ignored").length > 0)
      .then((all) => ofType(all, "issue", "ignored"));
    expectAppWebhook(ignored as ReceivedRequest, app.clientSecret, {
      resource: "issue",
      action: "ignored",
      installation,
    });
    expect(ignored?.json.actor).toEqual(userActor);
    expect(Object.keys(dataOf(ignored))).toEqual(["issue"]);
    expect(dataOf(ignored).issue).toMatchObject({
      id: issueId,
      shortId: "WEB-1",
      status: "ignored",
      count: 1,
      project: { slug: "web" },
      url: `/api/0/organizations/acme/issues/${issueId}/`,
    });

    await setStatus("unresolved");
    const [manual] = await receiver
      .until((all) => ofType(all, "issue", "unresolved").length > 0)
      .then((all) => ofType(all, "issue", "unresolved"));
    expectAppWebhook(manual as ReceivedRequest, app.clientSecret, {
      resource: "issue",
      action: "unresolved",
      installation,
    });
    expect(manual?.json.actor).toEqual(userActor);
    expect(Object.keys(dataOf(manual))).toEqual(["issue"]);
    expect(dataOf(manual).issue).toMatchObject({ id: issueId, status: "unresolved", count: 1 });

    // A regression (a new event on a resolved issue) is unresolved by the system.
    await setStatus("resolved");
    await receiver.until((all) => ofType(all, "issue", "resolved").length > 0);
    await capture(errorEvent({ fingerprint: ["workflow"] }));
    const regressions = await receiver
      .until((all) => ofType(all, "issue", "unresolved").length > 1)
      .then((all) => ofType(all, "issue", "unresolved"));
    const regression = regressions[1] as ReceivedRequest;
    expectAppWebhook(regression, app.clientSecret, { resource: "issue", action: "unresolved", installation });
    expect(regression.json.actor).toEqual(SYSTEM);
    expect(dataOf(regression).issue).toMatchObject({ id: issueId, status: "unresolved", count: 2 });
    expect(receiver.received.map((r) => r.headers["svc-hook-resource"])).toEqual(receiver.received.map(() => "issue"));
  });

  it("deliver comment.created, comment.updated and comment.deleted with {comment_id, issue_id, project_slug, timestamp, comment}", async () => {
    const { receiver, app, capture, owner, http, db } = await setup([], {}, ["comment"]);
    const installation = app.installation?.uuid as string;
    await capture(errorEvent({ fingerprint: ["comments"] }));
    const issueId = String((await db.selectFrom("issues").select("id").executeTakeFirstOrThrow()).id);
    const comments = `/api/0/organizations/acme/issues/${issueId}/comments/`;
    // Multi-byte text: the signature covers bytes, not UTF-16 code units.
    const posted = await http("POST", comments, { text: "naïve — ✓ 🐛" });
    expect(posted.status).toBe(201);
    const commentId = posted.body.id as string;
    const edited = await http("PUT", `${comments}${commentId}/`, { text: "edited ✓" });
    expect(edited.status).toBe(200);
    expect((await http("DELETE", `${comments}${commentId}/`)).status).toBe(204);
    const all = await receiver.until(
      (requests) =>
        ofType(requests, "comment", "deleted").length > 0 &&
        ofType(requests, "comment", "updated").length > 0 &&
        ofType(requests, "comment", "created").length > 0,
    );
    const userActor = { type: "user", id: String(owner.id), name: "Ada" };
    const expectations = [
      ["created", "naïve — ✓ 🐛", posted.body.dateUpdated],
      ["updated", "edited ✓", edited.body.dateUpdated],
      ["deleted", "edited ✓", edited.body.dateUpdated],
    ] as const;
    for (const [action, text, timestamp] of expectations) {
      const found = ofType(all, "comment", action);
      expect(found, action).toHaveLength(1);
      expectAppWebhook(found[0] as ReceivedRequest, app.clientSecret, { resource: "comment", action, installation });
      expect(found[0]?.json.actor).toEqual(userActor);
      expect(dataOf(found[0])).toEqual({
        comment_id: commentId,
        issue_id: issueId,
        project_slug: "web",
        timestamp,
        comment: text,
      });
      expect(timestamp).toMatch(ISO);
    }
    expect(all.filter((r) => r.headers["svc-hook-resource"] !== "comment")).toEqual([]);
  });

  it("deliver installation.deleted on uninstall and on app deletion, after the installation is gone", async () => {
    const { receiver, instance, http, owner, db } = await setup([], {}, []);
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "globex" });
    const multi = await api.apps.create({
      organization: "acme",
      name: "Multi",
      slug: "multi",
      isInternal: false,
      webhookUrl: `${receiver.url}/multi`,
      events: ["installation"],
    });
    const inAcme = await http("POST", "/api/0/organizations/acme/svc-app-installations/", { slug: "multi" });
    expect(inAcme.status).toBe(201);
    const inGlobex = await api.installations.install({ organization: "globex", app: "multi" });
    const acmeUuid = inAcme.body.uuid as string;
    await receiver.until(
      (all) => ofType(all, "installation", "created").filter((r) => r.path === "/multi").length === 2,
    );
    for (const [uuid, organization, installCode] of [
      [acmeUuid, "acme", inAcme.body.code],
      [inGlobex.uuid, "globex", inGlobex.code],
    ] as const) {
      const [created] = ofType(receiver.received, "installation", "created").filter(
        (r) => (r.json.installation as { uuid: string }).uuid === uuid,
      );
      expectAppWebhook(created as ReceivedRequest, multi.clientSecret, {
        resource: "installation",
        action: "created",
        installation: uuid,
      });
      expect(dataOf(created)).toEqual({
        installation: {
          uuid,
          app: { uuid: multi.uuid, slug: "multi" },
          organization: { slug: organization },
          status: "installed",
          code: installCode,
        },
      });
    }
    expect(
      ofType(receiver.received, "installation", "created").find(
        (r) => r.json.installation && (r.json.installation as { uuid: string }).uuid === acmeUuid,
      )?.json.actor,
    ).toEqual({ type: "user", id: String(owner.id), name: "Ada" });

    expect((await http("DELETE", `/api/0/svc-app-installations/${acmeUuid}/`)).status).toBe(204);
    const [uninstalled] = await receiver
      .until((all) => ofType(all, "installation", "deleted").length > 0)
      .then((all) => ofType(all, "installation", "deleted"));
    expectAppWebhook(uninstalled as ReceivedRequest, multi.clientSecret, {
      resource: "installation",
      action: "deleted",
      installation: acmeUuid,
    });
    expect(uninstalled?.json.actor).toEqual({ type: "user", id: String(owner.id), name: "Ada" });
    expect(dataOf(uninstalled)).toEqual({
      installation: {
        uuid: acmeUuid,
        app: { uuid: multi.uuid, slug: "multi" },
        organization: { slug: "acme" },
        status: "installed",
      },
    });

    expect((await http("DELETE", "/api/0/svc-apps/multi/")).status).toBe(204);
    const deleted = await receiver
      .until((all) => ofType(all, "installation", "deleted").length > 1)
      .then((all) => ofType(all, "installation", "deleted"));
    const appGone = deleted[1] as ReceivedRequest;
    expectAppWebhook(appGone, multi.clientSecret, {
      resource: "installation",
      action: "deleted",
      installation: inGlobex.uuid,
    });
    expect(dataOf(appGone)).toEqual({
      installation: {
        uuid: inGlobex.uuid,
        app: { uuid: multi.uuid, slug: "multi" },
        organization: { slug: "globex" },
        status: "installed",
      },
    });
    expect(
      await db.selectFrom("app_installations").select("uuid").where("uuid", "in", [acmeUuid, inGlobex.uuid]).execute(),
    ).toEqual([]);
    await waitFor(async () => (await deliveriesOf(db, "installation.deleted")).every((d) => d.status === "delivered"));
    expect((await deliveriesOf(db, "installation.deleted")).map((d) => d.installation_uuid).sort()).toEqual(
      [acmeUuid, inGlobex.uuid].sort(),
    );
    expect(receiver.received.filter((r) => r.path !== "/multi")).toEqual([]);
  });

  it("never sends another organization's events, nor unsubscribed categories", async () => {
    // No background worker: every delivery is sent by runDue below, so "nothing else came" is final.
    const { receiver, instance, db, app: tracker, capture, org, owner, http } = await setup([], { worker: false });
    const { api } = instance.faultline;
    const globex = await api.organizations.create({ slug: "globex" });
    await api.members.add({ organization: "globex", user: owner.id, role: "owner" });
    const globexProject = await api.projects.create({ organization: "globex", slug: "gweb" });
    // One public app (issue + installation) installed in both organizations…
    const multi = await api.apps.create({
      organization: "acme",
      name: "Multi",
      slug: "multi",
      isInternal: false,
      webhookUrl: `${receiver.url}/multi`,
      events: ["issue", "installation"],
    });
    const multiInAcme = (await api.installations.install({ organization: "acme", app: "multi" })).uuid;
    const multiInGlobex = (await api.installations.install({ organization: "globex", app: "multi" })).uuid;
    // … and an internal globex app that wants errors only (so not even its own installation.created).
    const errorsOnly = await api.apps.create({
      organization: "globex",
      name: "Errors only",
      slug: "errors-only",
      isInternal: true,
      webhookUrl: `${receiver.url}/errors-only`,
      events: ["error"],
    });
    const errorsOnlyUuid = errorsOnly.installation?.uuid as string;
    const trackerUuid = tracker.installation?.uuid as string;

    await captureFor(instance.faultline, { id: globexProject.id, organizationId: globex.id })(
      errorEvent({ fingerprint: ["globex"] }),
    );
    await capture(errorEvent({ fingerprint: ["acme"] }));
    const globexIssue = await db
      .selectFrom("issues")
      .select("id")
      .where("organization_id", "=", Number(globex.id))
      .executeTakeFirstOrThrow();
    // globex: a resolution (multi subscribes to issue) and a comment (nobody there subscribes to comment).
    expect(
      (await http("PUT", `/api/0/organizations/globex/issues/${globexIssue.id}/`, { status: "resolved" })).status,
    ).toBe(200);
    expect(
      (await http("POST", `/api/0/organizations/globex/issues/${globexIssue.id}/comments/`, { text: "globex only" }))
        .status,
    ).toBe(201);

    const expected = [
      `${trackerUuid} installation.created`,
      `${trackerUuid} issue.created`,
      `${trackerUuid} error.created`,
      `${multiInAcme} installation.created`,
      `${multiInAcme} issue.created`,
      `${multiInGlobex} installation.created`,
      `${multiInGlobex} issue.created`,
      `${multiInGlobex} issue.resolved`,
      `${errorsOnlyUuid} error.created`,
    ].sort();
    const organizationOf: Record<string, number> = {
      [trackerUuid]: Number(org.id),
      [multiInAcme]: Number(org.id),
      [multiInGlobex]: Number(globex.id),
      [errorsOnlyUuid]: Number(globex.id),
    };

    // The outbox holds exactly these deliveries, each in its installation's organization.
    const queued = await db
      .selectFrom("deliveries")
      .select(["installation_uuid", "event_type", "organization_id", "status"])
      .execute();
    expect(queued.map((d) => `${d.installation_uuid} ${d.event_type}`).sort()).toEqual(expected);
    for (const delivery of queued)
      expect(Number(delivery.organization_id)).toBe(organizationOf[delivery.installation_uuid as string]);

    await instance.faultline.worker.runDue("delivery.send");
    const settled = await db.selectFrom("deliveries").select(["installation_uuid", "event_type", "status"]).execute();
    expect(settled.map((d) => `${d.installation_uuid} ${d.event_type}`).sort()).toEqual(expected);
    expect(settled.map((d) => d.status)).toEqual(settled.map(() => "delivered"));

    // The receiver got exactly those requests, each at its app's URL, with data of its own organization.
    const pathOf: Record<string, string> = {
      [trackerUuid]: "/app",
      [multiInAcme]: "/multi",
      [multiInGlobex]: "/multi",
      [errorsOnlyUuid]: "/errors-only",
    };
    const secretOf: Record<string, string> = {
      "/app": tracker.clientSecret,
      "/multi": multi.clientSecret,
      "/errors-only": errorsOnly.clientSecret,
    };
    const received = receiver.received.map((r) => {
      const uuid = (r.json.installation as { uuid: string }).uuid;
      expect(r.path).toBe(pathOf[uuid]);
      expectAppWebhook(r, secretOf[r.path] as string, {
        resource: r.headers["svc-hook-resource"] as string,
        action: r.json.action as string,
        installation: uuid,
      });
      const data = r.json.data as {
        issue?: { project: { slug: string } };
        error?: { url: string };
        installation?: { organization: { slug: string } };
      };
      const slug = organizationOf[uuid] === Number(org.id) ? "acme" : "globex";
      if (data.issue) expect(data.issue.project.slug).toBe(slug === "acme" ? "web" : "gweb");
      if (data.error) expect(data.error.url).toContain(`/projects/${slug}/`);
      if (data.installation) expect(data.installation.organization.slug).toBe(slug);
      return `${uuid} ${r.headers["svc-hook-resource"]}.${r.json.action}`;
    });
    expect(received.sort()).toEqual(expected);
  });
});

describe("delivery policy", { timeout: 60_000 }, () => {
  it("retries 503 twice then succeeds: three attempts, one delivery id", async () => {
    const { receiver, capture, db } = await setup([503, 503], {}, ["error"]);
    await capture(errorEvent({ fingerprint: ["retry"] }));
    await receiver.until((all) => all.filter((r) => r.headers["svc-hook-resource"] === "error").length >= 3);
    const attempts = receiver.received.filter((r) => r.headers["svc-hook-resource"] === "error");
    expect(new Set(attempts.map((r) => r.headers["webhook-id"])).size).toBe(1);
    await waitFor(async () => (await deliveriesOf(db, "error.created"))[0]?.status === "delivered");
    const [delivery] = await deliveriesOf(db, "error.created");
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, last_response_code: 200 });
  });

  it("does not retry a 400, and disables the destination on 410", async () => {
    const { receiver, capture, db, app } = await setup([400, 410], {}, ["error"]);
    await capture(errorEvent({ fingerprint: ["client-error"] }));
    await capture(errorEvent({ fingerprint: ["client-error-2"] }));
    await receiver.until((all) => all.length >= 2);
    // The destination is disabled right after the outcomes commit, in a transaction of its own.
    const appStatus = async () =>
      (await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow())
        .webhook_status;
    await waitFor(async () => (await appStatus()) === "disabled");
    const statuses = await db
      .selectFrom("deliveries")
      .select(["event_type", "status", "attempts", "last_response_code"])
      .orderBy("date_created")
      .execute();
    expect(statuses.find((d) => d.last_response_code === 400)).toMatchObject({ status: "failed", attempts: 1 });
    expect(statuses.find((d) => d.last_response_code === 410)).toMatchObject({ status: "failed" });
    expect(statuses.filter((d) => d.status === "pending")).toEqual([]);
    const before = (await deliveriesOf(db, "error.created")).length;
    await capture(errorEvent({ fingerprint: ["after-disable"] }));
    expect((await deliveriesOf(db, "error.created")).length).toBe(before);
  });

  it("counts a receiver that hangs past the timeout as a failure and retries it", async () => {
    const { receiver, capture, db } = await setup([{ status: 200, delayMs: 2000 }], { delivery: { timeoutMs: 500 } }, [
      "error",
    ]);
    await capture(errorEvent({ fingerprint: ["slow"] }));
    await waitFor(async () => (await deliveriesOf(db, "error.created"))[0]?.status === "delivered", 8000);
    const [delivery] = await deliveriesOf(db, "error.created");
    expect(delivery?.attempts).toBe(2);
    expect(receiver.received.filter((r) => r.headers["svc-hook-resource"] === "error")).toHaveLength(2);
  });

  it("sends nothing when the change's transaction rolls back", async () => {
    let fail = false;
    const saboteur = definePlugin({
      id: "saboteur",
      on: {
        "issue.resolved": () => {
          if (fail) throw new Error("boom");
        },
      },
    });
    const { db, capture, token, instance } = await setup([], { plugins: [saboteur], logger: silentLogger });
    await capture(errorEvent({ fingerprint: ["rollback"] }));
    const issue = await db.selectFrom("issues").select("id").executeTakeFirstOrThrow();
    fail = true;
    const response = await instance.faultline.handler(
      new Request(`http://x/api/0/organizations/acme/issues/${issue.id}/`, {
        method: "PUT",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: '{"status":"resolved"}',
      }),
    );
    expect(response.status).toBe(500);
    expect(await deliveriesOf(db, "issue.resolved")).toEqual([]);
    expect((await db.selectFrom("issues").select("status").executeTakeFirstOrThrow()).status).toBe("unresolved");
  });

  it("loses nothing when the instance stops with deliveries due: the next instance sends them", async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const first = await createTestInstance({
      announce: false,
      worker: false,
      delivery: { allowPrivateNetworks: true },
    });
    const { api } = first.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const project = await api.projects.create({ organization: "acme", slug: "web" });
    await api.apps.create({
      organization: "acme",
      name: "T",
      slug: "t",
      isInternal: true,
      webhookUrl: `${receiver.url}/t`,
      events: ["error"],
    });
    const capture = captureFor(first.faultline, { id: project.id, organizationId: org.id });
    for (let i = 0; i < 5; i++) await capture(errorEvent({ fingerprint: [`crash-${i}`] }));
    // A worker that claimed a delivery and died mid-send: the lease is in the future, attempts counted.
    const db = first.faultline.container.resolve(tokens.Db);
    await db
      .updateTable("deliveries")
      .set({ attempts: 1, next_attempt_at: new Date(Date.now() + 60_000) })
      .where("id", "=", db.selectFrom("deliveries").select("id").limit(1))
      .execute();
    await first.faultline.close();
    const later = { now: () => new Date(Date.now() + 120_000) };
    const second = createFaultline({
      database: first.database,
      schema: first.schema,
      logger: silentLogger,
      clock: later,
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 20 },
    });
    cleanups.push(async () => {
      await second.close();
      await first.close();
    });
    await second.ready();
    await receiver.until((all) => new Set(all.map((r) => r.headers["webhook-id"])).size === 5);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(5);
  });

  // The PostgreSQL-only delivery-workers.test.ts also shows that both workers send; this one runs on
  // the embedded database too (two instances sharing one PGlite).
  it("two instances with workers on one database send each delivery exactly once", async () => {
    const { receiver, capture, instance, db } = await setup();
    const second = createFaultline({
      database: instance.database,
      schema: instance.schema,
      logger: silentLogger,
      delivery: { allowPrivateNetworks: true, pollIntervalMs: 10 },
    });
    cleanups.push(() => second.close());
    await second.ready();
    await Promise.all(Array.from({ length: 30 }, (_, i) => capture(errorEvent({ fingerprint: [`twice-${i % 3}`] }))));
    const rows = await waitFor(async () => {
      const all = await db.selectFrom("deliveries").select(["id", "status", "attempts"]).execute();
      return all.every((row) => row.status !== "pending") && all;
    });
    expect(rows.filter((row) => row.status !== "delivered" || row.attempts !== 1)).toEqual([]);
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(ids.sort()).toEqual(rows.map((row) => row.id).sort());
  });

  it("refuses at send time a destination that is private when private networks are not allowed", async () => {
    const { db, capture, receiver } = await setup([], { delivery: { allowPrivateNetworks: false } }, ["error"]);
    await capture(errorEvent({ fingerprint: ["ssrf"] }));
    // Every attempt (1 + 3 retries) refused: nothing ever reached the receiver.
    await waitFor(async () =>
      ["delivered", "failed"].includes((await deliveriesOf(db, "error.created"))[0]?.status ?? ""),
    );
    expect(receiver.received).toEqual([]);
    const [delivery] = await deliveriesOf(db, "error.created");
    expect(delivery?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app$/);
    expect(delivery).toMatchObject({ attempts: 4, last_response_code: 0 });
    expect(delivery?.last_error).toMatch(/refused to connect to a private address \(127\.0\.0\.1\)/);
  });

  it("refuses at connect time a host NAME that resolves to a private address (DNS rebinding)", async () => {
    const { db, capture, receiver, http } = await setup([], { delivery: { allowPrivateNetworks: false } }, []);
    const port = new URL(receiver.url).port;
    // Creation over HTTP resolves the name and refuses it…
    const refused = await http("POST", "/api/0/svc-apps/", {
      name: "Rebound",
      organization: "acme",
      slug: "rebound",
      isInternal: true,
      webhookUrl: `http://localhost:${port}/rebound`,
      events: ["error"],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toMatchObject({ webhookUrl: [expect.stringMatching(/private/)] });
    // … so the app is created with a public address, and the name is "rebound" to loopback afterwards.
    const created = await http("POST", "/api/0/svc-apps/", {
      name: "Rebound",
      organization: "acme",
      slug: "rebound",
      isInternal: true,
      webhookUrl: "http://93.184.215.14/rebound",
      events: ["error"],
    });
    expect(created.status).toBe(201);
    await db
      .updateTable("apps")
      .set({ webhook_url: `http://localhost:${port}/rebound` })
      .where("slug", "=", "rebound")
      .execute();
    await capture(errorEvent({ fingerprint: ["rebinding"] }));
    await waitFor(async () =>
      ["delivered", "failed"].includes((await deliveriesOf(db, "error.created"))[0]?.status ?? ""),
    );
    expect(receiver.received).toEqual([]);
    const deliveries = await deliveriesOf(db, "error.created");
    expect(deliveries).toHaveLength(1);
    // A name, not a literal: only the connect-time lookup guard can have refused it.
    expect(deliveries[0]?.url).toBe(`http://localhost:${port}/rebound`);
    expect(deliveries[0]).toMatchObject({ status: "failed", attempts: 4, last_response_code: 0 });
    expect(deliveries[0]?.last_error).toMatch(/^refused to connect to a private address \((127\.0\.0\.1|::1)\)$/);
  });
});

describe("disabling a failing destination", () => {
  it("disables a destination after five days of failures with no success, and tells the host", async () => {
    let now = new Date("2026-05-01T00:00:00Z");
    const disabled: unknown[] = [];
    const watcher = definePlugin({
      id: "watcher",
      on: { "delivery.destination_disabled": (event) => void disabled.push(event.payload) },
    });
    const receiver = await startReceiver(Array.from({ length: 20 }, () => 500));
    const instance = await createTestInstance({
      announce: false,
      worker: false,
      clock: { now: () => now },
      plugins: [watcher],
      delivery: { allowPrivateNetworks: true, retryDelays: Array.from({ length: 10 }, () => 0) },
    });
    cleanups.push(receiver.close, instance.close);
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    const project = await api.projects.create({ organization: "acme", slug: "web" });
    const app = await api.apps.create({
      organization: "acme",
      name: "Flaky",
      slug: "flaky",
      isInternal: true,
      webhookUrl: `${receiver.url}/flaky`,
      events: ["error"],
    });
    const capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    await capture(errorEvent({ fingerprint: ["d1"] }));
    const send = () => instance.faultline.worker.runDue("delivery.send");
    await send();
    const db = instance.faultline.container.resolve(tokens.Db);
    expect(
      (await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow())
        .webhook_status,
    ).toBe("active");
    now = new Date(now.getTime() + 4 * 86_400_000);
    await capture(errorEvent({ fingerprint: ["d2"] }));
    await send();
    expect(
      (await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow())
        .webhook_status,
    ).toBe("active");
    now = new Date(now.getTime() + 86_400_000 + 1000);
    await capture(errorEvent({ fingerprint: ["d3"] }));
    await send();
    expect(
      (await db.selectFrom("apps").select("webhook_status").where("uuid", "=", app.uuid).executeTakeFirstOrThrow())
        .webhook_status,
    ).toBe("disabled");
    expect(disabled).toEqual([{ destinationType: "app", destinationId: expect.any(String), reason: "failing" }]);
  });
});
