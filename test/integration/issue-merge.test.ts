import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { startReceiver } from "../helpers/receiver.js";
import { seedOrganization } from "../helpers/seed.js";
import { httpCaller, type RunningServer, serveFaultline } from "../helpers/server.js";

const HOUR = 3_600_000;

describe("issue merge and unmerge (docs/issues.md, Merging and unmerging)", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  let apiProject: { id: string; keys: Array<{ public: string }> };
  let token: string;
  const now = Math.floor(Date.now() / 1000) * 1000;
  /** Issues by fingerprint: a (3 events) and b (2 events) in acme/web, d in acme/api, g in globex. */
  const issue = { a: "", b: "", d: "", g: "" };
  let sent = 0;

  const call = httpCaller(() => server.url);
  const orgPath = (org: string, rest = "") => `/api/0/organizations/${org}/issues/${rest}`;
  const db = () => instance.faultline.container.resolve(tokens.Db);

  /** Sends one event through the envelope endpoint, digests it, and answers its issue id. */
  async function send(
    project: { id: string | number; keys: Array<{ public: string }> },
    fingerprint: string,
    fields: Record<string, unknown> = {},
  ): Promise<string> {
    const eventId = (++sent).toString(16).padStart(32, "0");
    const event = { ...errorEvent({ fingerprint: [fingerprint], ...fields }), event_id: eventId };
    const envelope = [JSON.stringify({ event_id: eventId }), '{"type":"event"}', JSON.stringify(event)].join("\n");
    const url = `${server.url}/api/${project.id}/envelope/?sentry_key=${project.keys[0]?.public}`;
    expect((await fetch(url, { method: "POST", body: envelope })).status).toBe(200);
    await instance.faultline.worker.runDue("ingest.digest");
    const row = await db().selectFrom("events").select("issue_id").where("event_id", "=", eventId).executeTakeFirst();
    return String(row?.issue_id);
  }

  const at = (hoursAgo: number) => (now - hoursAgo * HOUR) / 1000;
  const rows = async (table: "issue_environments" | "issue_tags", issueId: string) =>
    (await db().selectFrom(table).selectAll().where("issue_id", "=", issueId).execute()).map((row) =>
      Object.values({ ...row, issue_id: undefined })
        .filter((v) => v !== undefined)
        .join("="),
    );
  const hashOf = async (fingerprintIssue: string) =>
    (await db().selectFrom("issue_hashes").select("hash").where("issue_id", "=", fingerprintIssue).execute()).map(
      (row) => row.hash,
    );
  /** Events the alert rules' per-minute counters hold for an issue. */
  const minutely = async (id: string) =>
    Number(
      (
        await db()
          .selectFrom("issue_stats_minutely")
          .select((eb) => eb.fn.sum<string>("count").as("n"))
          .where("issue_id", "=", id)
          .executeTakeFirstOrThrow()
      ).n ?? 0,
    );
  const detail = async (id: string) => (await call("GET", orgPath("acme", `${id}/`), token)).body;
  const merge = (query: string, body: unknown = { merge: 1 }, org = "acme", as = token) =>
    call("PUT", `${orgPath(org)}?${query}`, as, body);

  beforeAll(async () => {
    receiver = await startReceiver();
    instance = await createTestInstance({ worker: false, delivery: { allowPrivateNetworks: true } });
    const { api } = instance.faultline;
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    token = acme.allScopesToken;
    apiProject = await api.projects.create({ organization: "acme", slug: "api" });
    server = await serveFaultline(instance.faultline);
    const app = await api.apps.create({
      organization: "acme",
      name: "Tracker",
      slug: "tracker",
      scopes: ["event:read"],
      webhookUrl: `${receiver.url}/hook`,
      events: ["issue"],
    });
    const installation = await api.installations.install({ organization: "acme", app: app.slug });
    const web = acme.project;
    for (const [hoursAgo, user, browser] of [
      [3, "u1", "Firefox"],
      [2, "u2", "Firefox"],
      [1, "u1", "Firefox"],
    ] as const)
      issue.a = await send(web, "a", {
        timestamp: at(hoursAgo),
        user: { id: user },
        environment: "production",
        release: "web@1.0",
        tags: { browser },
      });
    for (const [hoursAgo, user] of [
      [5, "u2"],
      [1, "u3"],
    ] as const)
      issue.b = await send(web, "b", {
        timestamp: at(hoursAgo),
        user: { id: user },
        environment: "staging",
        release: "web@0.9",
        tags: { browser: "Chrome" },
      });
    issue.d = await send(apiProject, "d");
    issue.g = await send(globex.project, "g");
    // What a child brings: a comment, a bookmark and an external issue link.
    expect(
      (await call("POST", orgPath("acme", `${issue.b}/comments/`), token, { text: "seen on staging" })).status,
    ).toBe(201);
    expect((await call("PUT", orgPath("acme", `${issue.b}/`), token, { isBookmarked: true })).status).toBe(200);
    const linked = await call("POST", `/api/0/svc-app-installations/${installation.uuid}/external-issues/`, token, {
      issueId: Number(issue.b),
      webUrl: "https://tracker.test/TRK-7",
      project: "web",
      identifier: "TRK-7",
    });
    expect(linked.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
    await receiver?.close();
  });

  it("refuses fewer than two issues, issues of several projects, and merging with other changes (400)", async () => {
    const one = await merge(`id=${issue.a}`);
    expect(one.status).toBe(400);
    expect(one.body.detail).toBe("Merging needs at least two issues: only one of the given issues matched");
    // Another organization's issue is not one of acme's: only one matched, and it is left alone.
    const foreign = await merge(`id=${issue.a}&id=${issue.g}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.detail).toMatch(/only one of the given issues matched/);
    const projects = await merge(`id=${issue.a}&id=${issue.d}`);
    expect(projects.status).toBe(400);
    expect(projects.body.detail).toBe(
      "Merging across multiple projects is not supported: the issues belong to 2 projects",
    );
    const combined = await merge(`id=${issue.a}&id=${issue.b}`, { merge: 1, status: "resolved" });
    expect(combined.status).toBe(400);
    expect(combined.body.errors).toEqual({ merge: ["cannot be combined with other changes (status)"] });
    // Globex's merge of acme's issues matches none of them.
    const crossed = await merge(`id=${issue.a}&id=${issue.b}`, { merge: 1 }, "globex", globex.allScopesToken);
    expect(crossed.status).toBe(400);
    expect((await detail(issue.b)).count).toBe("2");
    const globexIssue = await call("GET", orgPath("globex", `${issue.g}/`), globex.allScopesToken);
    expect(globexIssue.body).toMatchObject({ id: issue.g, count: "1" });
  });

  it("merges into the issue with the most events, moving everything of the child", async () => {
    const merged = await merge(`id=${issue.b}&id=${issue.a}`);
    expect(merged).toMatchObject({ status: 200, body: { merge: { parent: issue.a, children: [issue.b] } } });
    expect(Object.keys(merged.body)).toEqual(["merge"]);
    expect((await call("GET", orgPath("acme", `${issue.b}/`), token)).status).toBe(404);

    const parent = await detail(issue.a);
    expect(parent).toMatchObject({
      count: "5",
      userCount: 3,
      numComments: 1,
      isBookmarked: true,
      firstSeen: new Date(at(5) * 1000).toISOString(),
      lastSeen: new Date(at(1) * 1000).toISOString(),
      firstRelease: { version: "web@0.9" },
      lastRelease: { version: "web@1.0" },
    });
    expect(parent.activity[0]).toMatchObject({ type: "merge", data: { issues: [{ id: issue.b, shortId: "WEB-2" }] } });
    expect(parent.activity.map((a: { type: string }) => a.type).sort()).toEqual([
      "first_seen",
      "first_seen",
      "merge",
      "note",
    ]);
    const hourly = parent.stats["24h"] as Array<[number, number]>;
    expect(hourly.reduce((sum, [, count]) => sum + count, 0)).toBe(5);
    expect(Math.max(...hourly.map(([, count]) => count))).toBe(2); // a's and b's events an hour ago, summed
    expect(await rows("issue_environments", issue.a)).toEqual(expect.arrayContaining(["production", "staging"]));
    expect((await rows("issue_tags", issue.a)).filter((tag) => tag.startsWith("browser="))).toEqual(
      expect.arrayContaining(["browser=Firefox", "browser=Chrome"]),
    );
    const staging = await call("GET", `${orgPath("acme")}?query=environment:staging`, token);
    expect(staging.body.map((i: { id: string }) => i.id)).toEqual([issue.a]);
    // The child's event fields are searchable on the parent (docs/search.md).
    const u3 = await call("GET", `${orgPath("acme")}?query=user.id:u3`, token);
    expect(u3.body.map((i: { id: string }) => i.id)).toEqual([issue.a]);
    const events = await call("GET", orgPath("acme", `${issue.a}/events/`), token);
    expect(events.body).toHaveLength(5);
    const links = await call("GET", orgPath("acme", `${issue.a}/external-issues/`), token);
    expect(links.body.map((l: { issueId: string; displayName: string }) => [l.issueId, l.displayName])).toEqual([
      [issue.a, "web#TRK-7"],
    ]);
    expect([await minutely(issue.a), await minutely(issue.b)]).toEqual([5, 0]);
    const comments = await call("GET", orgPath("acme", `${issue.a}/comments/`), token);
    expect(comments.body.map((c: { text: string }) => c.text)).toEqual(["seen on staging"]);
  });

  it("sends the issue.merged webhook to the installed app", async () => {
    await instance.faultline.worker.runDue("delivery.send");
    await receiver.until((requests) => requests.some((r) => r.json.action === "merged"));
    const delivered = receiver.received.find((r) => r.json.action === "merged");
    expect(delivered?.headers["svc-hook-resource"]).toBe("issue");
    expect(delivered?.json.data).toMatchObject({
      issue: { id: issue.a, count: 5, userCount: 3 },
      children: [{ id: issue.b, shortId: "WEB-2" }],
    });
  });

  it("groups a new event of the child's fingerprint into the parent", async () => {
    expect(await send(acme.project, "b", { timestamp: at(0.5), user: { id: "u3" }, environment: "staging" })).toBe(
      issue.a,
    );
    expect(await detail(issue.a)).toMatchObject({ count: "6", userCount: 3 });
  });

  it("refuses an unknown hash, a hash of another issue and splitting off every hash (400)", async () => {
    const [hashD] = await hashOf(issue.d);
    const unknown = await call("DELETE", orgPath("acme", `${issue.a}/hashes/?id=${"f".repeat(32)}&id=${hashD}`), token);
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toBe(`Not a hash of issue ${issue.a}: ${"f".repeat(32)}, ${hashD}`);
    const all = (await hashOf(issue.a)).map((hash) => `id=${hash}`).join("&");
    const everything = await call("DELETE", orgPath("acme", `${issue.a}/hashes/?${all}`), token);
    expect(everything.status).toBe(400);
    expect(everything.body.detail).toBe("Cannot unmerge every hash of an issue: nothing would remain in it");
    const crossed = await call("DELETE", orgPath("globex", `${issue.a}/hashes/?id=${hashD}`), globex.allScopesToken);
    expect(crossed.status).toBe(404);
    expect(await detail(issue.a)).toMatchObject({ count: "6" });
  });

  it("unmerges a hash into a new issue (202), recomputing both from their stored events", async () => {
    const before = receiver.received.length;
    const bEvent = await db()
      .selectFrom("events")
      .select("hashes")
      .where("issue_id", "=", issue.a)
      .where("environment", "=", "staging")
      .executeTakeFirstOrThrow();
    const hashB = bEvent.hashes[0] as string;
    const split = await fetch(`${server.url}${orgPath("acme", `${issue.a}/hashes/?id=${hashB}`)}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(split.status).toBe(202);
    expect(await split.text()).toBe("");
    const created = await db()
      .selectFrom("issue_hashes")
      .select("issue_id")
      .where("hash", "=", hashB)
      .executeTakeFirstOrThrow();
    const newId = String(created.issue_id);
    expect(newId).not.toBe(issue.a);
    expect(newId).not.toBe(issue.b);

    const fresh = await detail(newId);
    expect(fresh).toMatchObject({
      shortId: "WEB-3",
      count: "3",
      userCount: 2,
      firstSeen: new Date(at(5) * 1000).toISOString(),
      firstRelease: { version: "web@0.9" },
      status: "unresolved",
    });
    expect(fresh.activity.map((a: { type: string; data: unknown }) => [a.type, a.data])).toEqual([
      ["unmerge_source", { fingerprints: [hashB], source_id: issue.a }],
    ]);
    const source = await detail(issue.a);
    expect(source).toMatchObject({ count: "3", userCount: 2, firstSeen: new Date(at(3) * 1000).toISOString() });
    expect(source.activity[0]).toMatchObject({
      type: "unmerge_destination",
      data: { fingerprints: [hashB], destination_id: newId },
    });
    expect(await rows("issue_environments", issue.a)).toEqual(["production"]);
    expect(await rows("issue_environments", newId)).toEqual(["staging"]);
    // Search fields are recomputed from each side's stored events too.
    for (const [query, ids] of [
      ["user.id:u3", [newId]],
      ["user.id:u1", [issue.a]],
      ["user.id:u2", [issue.a, newId]],
    ] as const) {
      const found = await call("GET", `${orgPath("acme")}?query=${query}`, token);
      expect(found.body.map((i: { id: string }) => i.id).sort(), query).toEqual([...ids].sort());
    }
    expect([await minutely(issue.a), await minutely(newId)]).toEqual([3, 3]);
    const hourly = (await detail(newId)).stats["24h"] as Array<[number, number]>;
    expect(hourly.reduce((sum, [, count]) => sum + count, 0)).toBe(3);
    expect((await call("GET", orgPath("acme", `${newId}/events/`), token)).body).toHaveLength(3);
    const hashes = await call("GET", orgPath("acme", `${issue.a}/hashes/`), token);
    expect(hashes.body.map((h: { id: string }) => h.id)).toEqual(await hashOf(issue.a));
    expect(hashes.body).toHaveLength(1);

    await instance.faultline.worker.runDue("delivery.send");
    await receiver.until((requests) => requests.slice(before).some((r) => r.json.action === "created"));
    const announced = receiver.received.slice(before).find((r) => r.json.action === "created");
    expect(announced?.json.data).toMatchObject({ issue: { id: newId, shortId: "WEB-3", count: 3 } });

    expect(await send(acme.project, "b", { timestamp: at(0.2) })).toBe(newId);
    expect(await send(acme.project, "a", { timestamp: at(0.2) })).toBe(issue.a);
    expect(await detail(newId)).toMatchObject({ count: "4" });
  });
});
