import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, definePlugin, type DomainEvent, SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import { silentLogger } from "../../src/logging/logger.js";

describe("issue workflow", () => {
  let now = new Date("2026-03-01T12:00:00.000Z");
  const advance = (minutes: number) => (now = new Date(now.getTime() + minutes * 60_000));
  const domainEvents: DomainEvent[] = [];
  const spy = definePlugin({
    id: "spy",
    on: Object.fromEntries(
      ["issue.created", "issue.resolved", "issue.ignored", "issue.assigned", "issue.unresolved", "error.created"].map(
        (name) => [name, (event: DomainEvent) => void domainEvents.push(event)],
      ),
    ),
  });
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let token: string;
  let orgToken: string;
  let capture: ReturnType<typeof captureFor>;
  let fingerprintSeq = 0;
  let organizationId: string;

  beforeAll(async () => {
    instance = await createTestInstance({ clock: { now: () => now }, worker: false, plugins: [spy] });
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    organizationId = org.id;
    const ada = await api.users.create({ username: "ada", email: "ada@acme.test", name: "Ada" });
    await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    await api.users.create({ username: "bob", email: "bob@acme.test" });
    await api.members.add({ organization: "acme", user: "bob", role: "member" });
    await api.teams.create({ organization: "acme", slug: "backend", name: "Backend" });
    const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    await api.projects.create({ organization: "acme", slug: "norelease" });
    token = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    orgToken = (await api.tokens.create({ organization: "acme", scopes: ["event:admin"] })).token;
    capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const issuePath = (id: string) => `${server.url}/api/0/organizations/acme/issues/${id}/`;
  const get = async (id: string) => (await fetch(issuePath(id), { headers: bearer(token) })).json();
  const put = (id: string, body: unknown, auth = token) =>
    fetch(issuePath(id), {
      method: "PUT",
      headers: { ...bearer(auth), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** A new issue (unique fingerprint) with one event; returns its id. */
  const newIssue = async (overrides: Record<string, unknown> = {}) => {
    const fingerprint = [`fp-${++fingerprintSeq}`];
    const { eventId } = await capture(errorEvent({ fingerprint, ...overrides }));
    const row = await instance.faultline.container
      .resolve(tokens.Db)
      .selectFrom("events")
      .select("issue_id")
      .where("event_id", "=", eventId)
      .executeTakeFirstOrThrow();
    return {
      id: String(row.issue_id),
      fingerprint,
      send: (o: Record<string, unknown> = {}) => capture(errorEvent({ fingerprint, ...overrides, ...o })),
    };
  };
  const activityTypes = async (id: string) => (await get(id)).activity.map((a: { type: string }) => a.type);

  it("creates an issue from a first event, and groups the same stack into it", async () => {
    const first = await capture(errorEvent({ user: { id: "u1" } }));
    expect(first.eventId).toMatch(/^[0-9a-f]{32}$/);
    await capture(
      errorEvent({
        user: { id: "u2" },
        exception: {
          values: [
            {
              type: "TypeError",
              value: "another value",
              stacktrace: { frames: [{ filename: "app.js", function: "handler", lineno: 9, in_app: true }] },
            },
          ],
        },
      }),
    );
    await capture(errorEvent({}, [{ filename: "other.js", function: "elsewhere", in_app: true }]));
    const list = await (
      await fetch(`${server.url}/api/0/organizations/acme/issues/WEB-1/`, { headers: bearer(token) })
    ).json();
    // title, culprit and level follow the latest event
    expect(list).toMatchObject({
      shortId: "WEB-1",
      title: "TypeError: another value",
      culprit: "handler(app.js)",
      level: "error",
      count: "2",
      userCount: 2,
      status: "unresolved",
      substatus: "new",
    });
    expect(list.activity.map((a: { type: string }) => a.type)).toEqual(["first_seen"]);
    expect((await get("WEB-2")).count).toBe("1");
  });

  it("resolves now, with one activity, and nothing more when resolved again", async () => {
    const { id } = await newIssue();
    const response = await put(id, { status: "resolved" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ status: "resolved", statusDetails: {}, substatus: null });
    expect(body.activity[0]).toMatchObject({ type: "set_resolved", user: { username: "ada" } });
    await put(id, { status: "resolved" });
    expect(await activityTypes(id)).toEqual(["set_resolved", "first_seen"]);
  });

  it("resolves in a release; older releases do not regress it, the same or newer do", async () => {
    const issue = await newIssue({ release: "1.0.0" });
    await issue.send({ release: "2.0.0" });
    const resolved = await (await put(issue.id, { status: "resolved", statusDetails: { inRelease: "2.0.0" } })).json();
    expect(resolved.statusDetails).toMatchObject({ inRelease: "2.0.0", actor: { username: "ada" } });
    expect(resolved.activity[0]).toMatchObject({ type: "set_resolved_in_release", data: { version: "2.0.0" } });
    await issue.send({ release: "1.0.0" });
    expect((await get(issue.id)).status).toBe("resolved");
    await issue.send({ release: "2.1.0" });
    const regressed = await get(issue.id);
    expect(regressed).toMatchObject({ status: "unresolved", substatus: "regressed", statusDetails: {} });
    expect(regressed.activity[0]).toMatchObject({ type: "set_regression", data: { version: "2.1.0" } });
  });

  it("resolves in the latest release, and refuses an unknown release", async () => {
    const issue = await newIssue({ release: "3.0.0" });
    const latest = await (await put(issue.id, { status: "resolved", statusDetails: { inRelease: "latest" } })).json();
    expect(latest.statusDetails.inRelease).toBe("3.0.0");
    const unknown = await put(issue.id, { status: "resolved", statusDetails: { inRelease: "9.9.9" } });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      detail: 'Invalid request: statusDetails.inRelease: Unknown release "9.9.9"',
      errors: { "statusDetails.inRelease": ['Unknown release "9.9.9"'] },
    });
  });

  it("resolves in the next release (both spellings); the release current at resolve time does not regress it", async () => {
    const issue = await newIssue({ release: "4.0.0" });
    const viaStatus = await (await put(issue.id, { status: "resolvedInNextRelease" })).json();
    expect(viaStatus).toMatchObject({
      status: "resolved",
      statusDetails: { inNextRelease: true, actor: { username: "ada" } },
    });
    expect(viaStatus.activity[0]).toMatchObject({ type: "set_resolved_in_release", data: { version: "" } });
    await issue.send({ release: "4.0.0" });
    expect((await get(issue.id)).status).toBe("resolved");
    await issue.send({ release: "4.0.1" });
    expect((await get(issue.id)).substatus).toBe("regressed");
    const viaDetails = await (
      await put(issue.id, { status: "resolved", statusDetails: { inNextRelease: true } })
    ).json();
    expect(viaDetails.status).toBe("resolved");
  });

  it("refuses next-release resolution in a project without releases", async () => {
    const other = await instance.faultline.api.projects.get("acme", "norelease");
    const otherCapture = captureFor(instance.faultline, { id: other?.id as string, organizationId: 1 });
    await otherCapture(errorEvent({ fingerprint: ["no-release"] }));
    const response = await put("NORELEASE-1", { status: "resolvedInNextRelease" });
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toBe(
      "No release data present in the system to form a basis for 'Next Release'",
    );
  });

  it("resolves in a commit and unresolves", async () => {
    const { id } = await newIssue();
    const inCommit = await (await put(id, { status: "resolved", statusDetails: { inCommit: "abc123" } })).json();
    expect(inCommit.statusDetails).toMatchObject({ inCommit: { id: "abc123" } });
    expect(inCommit.activity[0]).toMatchObject({ type: "set_resolved_in_commit", data: { commit: "abc123" } });
    const unresolved = await (await put(id, { status: "unresolved" })).json();
    expect(unresolved).toMatchObject({ status: "unresolved", substatus: "ongoing", statusDetails: {} });
    expect(unresolved.activity[0].type).toBe("set_unresolved");
  });

  it("ignores forever", async () => {
    const { id } = await newIssue();
    const ignored = await (await put(id, { status: "ignored" })).json();
    expect(ignored).toMatchObject({ status: "ignored", substatus: "archived_forever", statusDetails: {} });
    expect(ignored.activity[0]).toMatchObject({ type: "set_ignored", data: {} });
  });

  it("ignores for a duration: status flips at expiry, the timer writes the activity", async () => {
    const issue = await newIssue();
    const ignored = await (await put(issue.id, { status: "ignored", statusDetails: { ignoreDuration: 30 } })).json();
    expect(ignored).toMatchObject({ status: "ignored", substatus: "archived_until_condition_met" });
    expect(ignored.statusDetails).toMatchObject({
      ignoreDuration: 30,
      ignoreCount: null,
      ignoreUntil: new Date(now.getTime() + 30 * 60_000).toISOString(),
    });
    expect(ignored.activity[0]).toMatchObject({ type: "set_ignored", data: { ignoreDuration: 30 } });
    advance(29);
    expect((await get(issue.id)).status).toBe("ignored");
    advance(2);
    expect(await get(issue.id)).toMatchObject({ status: "unresolved", substatus: "ongoing", statusDetails: {} });
    domainEvents.length = 0;
    await instance.faultline.worker.runDue("issues.snooze-expiry");
    expect(await activityTypes(issue.id)).toEqual(["set_unresolved", "set_ignored", "first_seen"]);
    expect(domainEvents.map((e) => [e.name, e.actor.type])).toEqual([["issue.unresolved", "application"]]);
  });

  it("ignores until a count: the event reaching it escalates the issue", async () => {
    const issue = await newIssue();
    await put(issue.id, { status: "ignored", ignoreCount: 3 });
    await issue.send();
    await issue.send();
    expect((await get(issue.id)).status).toBe("ignored");
    const { eventId } = await issue.send();
    const escalated = await get(issue.id);
    expect(escalated).toMatchObject({ status: "unresolved", substatus: "escalating" });
    expect(escalated.activity[0]).toMatchObject({
      type: "set_escalating",
      data: {
        event_id: eventId,
        expired_snooze: { count: 3, window: null, until: null, user_count: null, user_window: null },
      },
    });
  });

  it("ignores until a count within a window, and until a number of users", async () => {
    const windowed = await newIssue();
    await put(windowed.id, { status: "ignored", statusDetails: { ignoreCount: 2, ignoreWindow: 60 } });
    await windowed.send();
    advance(61);
    await windowed.send();
    expect((await get(windowed.id)).status).toBe("ignored");
    await windowed.send();
    expect((await get(windowed.id)).substatus).toBe("escalating");

    const users = await newIssue({ user: { id: "a" } });
    await put(users.id, { status: "ignored", ignoreUserCount: 2 });
    await users.send({ user: { id: "a" } });
    await users.send({ user: { id: "b" } });
    expect((await get(users.id)).status).toBe("ignored");
    await users.send({ user: { id: "c" } });
    expect((await get(users.id)).substatus).toBe("escalating");
  });

  it("assigns to users and teams in every accepted form, and unassigns", async () => {
    const { id } = await newIssue();
    const byName = await (await put(id, { assignedTo: "bob" })).json();
    expect(byName.assignedTo).toBe("bob");
    expect(byName.assignee).toMatchObject({ type: "user", name: "bob", email: "bob@acme.test" });
    expect(byName.activity[0]).toMatchObject({
      type: "assigned",
      data: { assigneeType: "user", assigneeEmail: "bob@acme.test" },
    });
    expect((await (await put(id, { assignedTo: "#backend" })).json()).assignedTo).toBe("Backend");
    expect((await (await put(id, { assignedTo: "ada@acme.test" })).json()).assignedTo).toBe("ada");
    const team = (await (await put(id, { assignedTo: "Backend" })).json()).assignee;
    expect((await (await put(id, { assignedTo: `team:${team.id}` })).json()).assignee.type).toBe("team");
    const unknown = await put(id, { assignedTo: "nobody" });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).errors).toEqual({ assignedTo: ["Unknown actor input"] });
    const unassigned = await (await put(id, { assignedTo: "" })).json();
    expect(unassigned).toMatchObject({ assignedTo: null, assignee: null });
    expect(unassigned.activity[0].type).toBe("unassigned");
  });

  it("sets per-user flags for user tokens only, and toggles public", async () => {
    const { id } = await newIssue();
    const flagged = await (await put(id, { isBookmarked: true, isSubscribed: true, hasSeen: true })).json();
    expect(flagged).toMatchObject({ isBookmarked: true, isSubscribed: true, hasSeen: true });
    const viaOrgToken = await fetch(issuePath(id), { headers: bearer(orgToken) });
    expect(await viaOrgToken.json()).toMatchObject({ isBookmarked: false });
    const refused = await put(id, { isBookmarked: true }, orgToken);
    expect(refused.status).toBe(400);
    expect((await refused.json()).detail).toBe("This field requires a user token");
    expect((await (await put(id, { isPublic: true })).json()).activity[0].type).toBe("set_public");
    expect((await (await put(id, { isPublic: false })).json()).activity[0].type).toBe("set_private");
  });

  it("answers 400 for invalid bodies, never 500, and changes nothing", async () => {
    const { id } = await newIssue();
    for (const body of [
      { status: "bogus" },
      { status: "ignored", ignoreWindow: 10081, ignoreCount: 2 },
      { isPublic: "yes" },
      { statusDetails: { ignoreDuration: -1 }, status: "ignored" },
    ]) {
      const response = await put(id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).errors).toBeDefined();
    }
    expect(await get(id)).toMatchObject({ status: "unresolved", isPublic: false });
  });

  it("emits domain events with the actor and the data webhooks need", async () => {
    domainEvents.length = 0;
    const { id } = await newIssue();
    await put(id, { status: "resolved", statusDetails: { inCommit: "f00" } });
    await put(id, { status: "ignored" });
    await put(id, { assignedTo: "bob" });
    await put(id, { status: "unresolved" });
    expect(domainEvents.map((e) => e.name)).toEqual([
      "issue.created",
      "error.created",
      "issue.resolved",
      "issue.ignored",
      "issue.assigned",
      "issue.unresolved",
    ]);
    const [created, , resolved, , assigned] = domainEvents as Array<DomainEvent & { payload: Record<string, never> }>;
    expect(created?.payload.issue).toMatchObject({
      id: Number(id),
      shortId: expect.stringMatching(/^WEB-/),
      status: "unresolved",
      count: 1,
      project: { slug: "web" },
    });
    expect(created?.actor).toEqual({ type: "application", id: "svc", name: "svc" });
    expect(resolved?.payload).toMatchObject({ resolutionType: "in_commit" });
    expect(resolved?.actor).toMatchObject({ type: "user", name: "Ada" });
    expect(assigned?.payload).toMatchObject({ assignee: { type: "user", name: "bob", email: "bob@acme.test" } });
  });

  it("deletes: 202, then 404 at once; a new event with the fingerprint opens a new issue; the worker purges", async () => {
    const issue = await newIssue();
    await issue.send();
    const deleted = await fetch(issuePath(issue.id), { method: "DELETE", headers: bearer(token) });
    expect(deleted.status).toBe(202);
    expect((await fetch(issuePath(issue.id), { headers: bearer(token) })).status).toBe(404);
    expect((await fetch(issuePath(issue.id), { method: "DELETE", headers: bearer(token) })).status).toBe(404);
    const { eventId } = await issue.send();
    const db = instance.faultline.container.resolve(tokens.Db);
    const reopened = await db
      .selectFrom("events")
      .select("issue_id")
      .where("event_id", "=", eventId)
      .executeTakeFirstOrThrow();
    expect(String(reopened.issue_id)).not.toBe(issue.id);
    await instance.faultline.worker.runDue("issues.purge");
    const leftovers = await db
      .selectFrom("events")
      .select(db.fn.countAll().as("n"))
      .where("issue_id", "=", Number(issue.id))
      .executeTakeFirstOrThrow();
    expect(Number(leftovers.n)).toBe(0);
    expect(
      await db.selectFrom("issues").select("id").where("id", "=", Number(issue.id)).executeTakeFirst(),
    ).toBeUndefined();
  });

  it("hides other organizations' issues (404), by id and by short id", async () => {
    await instance.faultline.api.organizations.create({ slug: "globex" });
    const eve = await instance.faultline.api.users.create({ username: "eve" });
    await instance.faultline.api.members.add({ organization: "globex", user: eve.id, role: "owner" });
    const eveToken = (await instance.faultline.api.tokens.create({ user: eve.id, scopes: [...SCOPES] })).token;
    const { id } = await newIssue();
    for (const path of [`globex/issues/${id}/`, "globex/issues/WEB-1/", `acme/issues/${id}/`]) {
      const response = await fetch(`${server.url}/api/0/organizations/${path}`, { headers: bearer(eveToken) });
      expect(response.status, path).toBe(404);
      expect(
        (
          await fetch(`${server.url}/api/0/organizations/${path}`, {
            method: "PUT",
            headers: { ...bearer(eveToken), "content-type": "application/json" },
            body: "{}",
          })
        ).status,
      ).toBe(404);
    }
  });

  it("direct ingest: concurrent first events of one fingerprint create exactly one issue, also across instances", async () => {
    // Two direct-mode writers (ingest.queued: false) on this instance's schema: each groups and
    // stores its events itself, so both race to create the fingerprint's issue. (The queued
    // digest's race is tested in ingest-queue.test.ts.) On PGlite, one connection serializes the
    // writers' transactions; the race between them is real on PostgreSQL.
    const writers = [0, 1].map(() =>
      createFaultline({
        database: instance.database,
        schema: instance.schema,
        logger: silentLogger,
        worker: false,
        ingest: { queued: false },
      }),
    );
    try {
      await Promise.all(writers.map((writer) => writer.ready()));
      // A project of its own: every issue row in it comes from this test.
      const project = await instance.faultline.api.projects.create({
        organization: "acme",
        slug: "race",
        platform: "node",
      });
      const fingerprint = ["concurrent-first"];
      const perWriter = 20;
      const sent = perWriter * writers.length;
      await Promise.all(
        writers.flatMap((writer) => {
          const capture = captureFor(writer, { id: project.id, organizationId });
          return Array.from({ length: perWriter }, () => capture(errorEvent({ fingerprint })));
        }),
      );

      const db = instance.faultline.container.resolve(tokens.Db);
      const projectId = Number(project.id);
      // A writer that lost the race must delete the issue it created: a leftover row has no event.
      const issues = await db
        .selectFrom("issues")
        .select(["id", "times_seen"])
        .where("project_id", "=", projectId)
        .execute();
      expect(issues).toHaveLength(1);
      const [issue] = issues;
      expect(Number(issue?.times_seen)).toBe(sent);
      const events = await db.selectFrom("events").select("issue_id").where("project_id", "=", projectId).execute();
      expect(events).toHaveLength(sent);
      expect(new Set(events.map((event) => String(event.issue_id)))).toEqual(new Set([String(issue?.id)]));
      const hashes = await db
        .selectFrom("issue_hashes")
        .select("issue_id")
        .where("project_id", "=", projectId)
        .execute();
      expect(hashes.length).toBeGreaterThan(0);
      expect(new Set(hashes.map((hash) => String(hash.issue_id)))).toEqual(new Set([String(issue?.id)]));
    } finally {
      await Promise.all(writers.map((writer) => writer.close()));
    }
  });
});
