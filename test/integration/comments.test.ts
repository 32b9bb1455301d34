import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, type DomainEvent } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

interface Comment {
  id: string;
  issueId: string;
  text: string;
  user: { id: string; username: string; name: string; email: string | null } | null;
  dateCreated: string;
  dateUpdated: string;
}

describe("issue comments", () => {
  const seen: DomainEvent[] = [];
  const spy = definePlugin({
    id: "spy",
    on: {
      "comment.created": (event) => {
        // Lets a test prove that the comment, its count and its note share the event's transaction.
        if (event.payload.comment.text === "explode") throw new Error("subscriber failed");
        seen.push(event);
      },
      "comment.updated": (event) => void seen.push(event),
      "comment.deleted": (event) => void seen.push(event),
    },
  });
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let acme: Awaited<ReturnType<typeof seedOrganization>>;
  let globex: Awaited<ReturnType<typeof seedOrganization>>;
  /** Tokens: two members who may write but not moderate, a member who may moderate, an org-bound token, a billing user. */
  const tokens = { bob: "", carol: "", mod: "", org: "", orgAdmin: "", billing: "", reader: "" };
  let issueId: string;
  let otherIssueId: string;
  /** Errors the instance logged (the failing subscriber's), kept out of the test output. */
  const logged: unknown[] = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (entry: unknown) => void logged.push(entry) };

  const url = (path: string) => `${server.url}${path}`;
  const commentsOf = (issue: string, org = "acme") => `/api/0/organizations/${org}/issues/${issue}/comments/`;
  const get = (path: string, token = acme.allScopesToken) => fetch(url(path), { headers: bearer(token) });
  const send = (method: string, path: string, body: unknown, token = acme.allScopesToken) =>
    fetch(url(path), {
      method,
      headers: { ...bearer(token), "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const post = async (text: string, token: string, issue = issueId) => {
    const response = await send("POST", commentsOf(issue), { text }, token);
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as Comment;
  };
  const issue = async (id = issueId) => (await get(`/api/0/organizations/acme/issues/${id}/`)).json();

  beforeAll(async () => {
    instance = await createTestInstance({ plugins: [spy], worker: false, logger });
    const { api } = instance.faultline;
    acme = await seedOrganization(instance.faultline, "acme");
    globex = await seedOrganization(instance.faultline, "globex");
    const member = async (username: string, role: "member" | "billing", scopes: string[]) => {
      await api.users.create({ username, email: `${username}@acme.test`, name: username.toUpperCase() });
      await api.members.add({ organization: "acme", user: username, role });
      return (await api.tokens.create({ user: username, scopes: scopes as never })).token;
    };
    tokens.bob = await member("bob", "member", ["event:read", "event:write"]);
    tokens.carol = await member("carol", "member", ["event:read", "event:write"]);
    tokens.mod = await member("mod", "member", ["event:admin"]);
    tokens.billing = await member("billy", "billing", ["event:admin"]);
    tokens.reader = acme.eventReadToken;
    tokens.org = (await api.tokens.create({ organization: "acme", scopes: ["event:write"] })).token;
    tokens.orgAdmin = (await api.tokens.create({ organization: "acme", scopes: ["event:admin"] })).token;
    const capture = captureFor(instance.faultline, { id: acme.project.id, organizationId: acme.organization.id });
    await capture(errorEvent({ fingerprint: ["commented"] }));
    await capture(errorEvent({ fingerprint: ["quiet"], message: "other" }));
    server = await serveFaultline(instance.faultline);
    const list = await (await get("/api/0/organizations/acme/issues/?query=&sort=new")).json();
    [issueId, otherIssueId] = [list[1].id, list[0].id];
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  it("creates a comment: 201 with its shape, numComments + 1, a note activity and comment.created", async () => {
    seen.length = 0;
    const before = Date.now();
    const comment = await post("Looking into it", tokens.bob);
    expect(comment).toEqual({
      id: expect.stringMatching(/^\d+$/),
      issueId,
      text: "Looking into it",
      user: { id: expect.stringMatching(/^\d+$/), username: "bob", name: "BOB", email: "bob@acme.test" },
      dateCreated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      dateUpdated: comment.dateCreated,
    });
    expect(Date.parse(comment.dateCreated)).toBeGreaterThanOrEqual(before - 1000);

    const detail = await issue();
    expect(detail.numComments).toBe(1);
    expect(detail.activity[0]).toMatchObject({
      type: "note",
      data: { text: "Looking into it" },
      user: { username: "bob" },
    });
    const listed = await (await get(`/api/0/organizations/acme/issues/?query=&sort=new`)).json();
    expect(listed.find((item: { id: string }) => item.id === issueId).numComments).toBe(1);

    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      name: "comment.created",
      organizationId: Number(acme.organization.id),
      actor: { type: "user", id: comment.user?.id, name: "BOB" },
      payload: {
        issue: { id: Number(issueId), shortId: detail.shortId, project: { slug: "web" } },
        comment: {
          id: Number(comment.id),
          issueId: Number(issueId),
          text: "Looking into it",
          userId: Number(comment.user?.id),
        },
      },
    });
    await send("DELETE", `${commentsOf(issueId)}${comment.id}/`, undefined, tokens.bob);
  });

  it("lets the author edit and delete; others get 403 unless they have event:admin", async () => {
    const path = commentsOf(issueId);
    const comment = await post("first draft", tokens.bob);
    seen.length = 0;

    for (const token of [tokens.carol, tokens.org]) {
      const refused = await send("PUT", `${path}${comment.id}/`, { text: "hijacked" }, token);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        detail: "You do not have permission to perform this action.",
        requiredScopes: ["event:admin"],
      });
      expect(refused.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="event:admin"');
      expect((await send("DELETE", `${path}${comment.id}/`, undefined, token)).status).toBe(403);
    }

    const edited = await send("PUT", `${path}${comment.id}/`, { text: "  second draft  ", ignored: true }, tokens.bob);
    expect(edited.status).toBe(200);
    const body = (await edited.json()) as Comment;
    expect(body).toMatchObject({
      id: comment.id,
      text: "second draft",
      user: { username: "bob" },
      dateCreated: comment.dateCreated,
    });
    expect(Date.parse(body.dateUpdated)).toBeGreaterThanOrEqual(Date.parse(comment.dateCreated));
    // The note is the comment (as in Sentry): it shows the edited text.
    expect((await issue()).activity[0]).toMatchObject({ type: "note", data: { text: "second draft" } });

    const moderated = await send("PUT", `${path}${comment.id}/`, { text: "moderated" }, tokens.mod);
    expect(moderated.status).toBe(200);
    expect(((await moderated.json()) as Comment).user?.username).toBe("bob");

    expect((await send("DELETE", `${path}${comment.id}/`, undefined, tokens.mod)).status).toBe(204);
    expect((await get(path)).status).toBe(200);
    expect(await (await get(path)).json()).toEqual([]);
    const detail = await issue();
    expect(detail.numComments).toBe(0);
    expect(detail.activity.filter((entry: { type: string }) => entry.type === "note")).toEqual([]);

    expect(seen.map((event) => [event.name, event.actor.name])).toEqual([
      ["comment.updated", "BOB"],
      ["comment.updated", "MOD"],
      ["comment.deleted", "MOD"],
    ]);
    expect(seen[2]?.payload).toMatchObject({ comment: { id: Number(comment.id), text: "moderated" } });
    expect((await send("DELETE", `${path}${comment.id}/`, undefined, tokens.bob)).status).toBe(404);
  });

  it("lets a token without a user comment as no one; only event:admin may change that comment", async () => {
    const path = commentsOf(issueId);
    seen.length = 0;
    const comment = await post("automated triage", tokens.org);
    expect(comment.user).toBeNull();
    expect(seen[0]?.actor).toMatchObject({ type: "application" });
    expect((await issue()).activity[0]).toMatchObject({ type: "note", data: { text: "automated triage" }, user: null });

    expect((await send("PUT", `${path}${comment.id}/`, { text: "again" }, tokens.org)).status).toBe(403);
    expect((await send("DELETE", `${path}${comment.id}/`, undefined, tokens.bob)).status).toBe(403);
    expect((await send("PUT", `${path}${comment.id}/`, { text: "edited by admin" }, tokens.orgAdmin)).status).toBe(200);
    expect((await send("DELETE", `${path}${comment.id}/`, undefined, acme.allScopesToken)).status).toBe(204);
    expect((await issue()).numComments).toBe(0);
  });

  it("lists newest first and walks pages through the Link header", async () => {
    const created: string[] = [];
    for (const text of ["one", "two", "three", "four", "five"])
      created.push((await post(text, tokens.carol, otherIssueId)).id);
    const first = await get(`${commentsOf(otherIssueId)}?per_page=2`, tokens.reader);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-per-page")).toBe("2");
    expect(first.headers.get("link")).toMatch(/rel="previous"; results="false".*rel="next"; results="true"/);

    const walked: Comment[] = [];
    let next: string | undefined = url(`${commentsOf(otherIssueId)}?per_page=2`);
    while (next) {
      const response: Response = await fetch(next, { headers: bearer(tokens.reader) });
      walked.push(...((await response.json()) as Comment[]));
      next = /<([^>]+)>; rel="next"; results="true"/.exec(response.headers.get("link") ?? "")?.[1];
    }
    expect(walked.map((comment) => comment.text)).toEqual(["five", "four", "three", "two", "one"]);
    expect(walked.map((comment) => comment.id)).toEqual([...created].reverse());
    expect((await issue(otherIssueId)).numComments).toBe(5);
    // The short id names the issue as well.
    const { shortId } = await issue(otherIssueId);
    expect(await (await get(`${commentsOf(shortId)}?per_page=1`)).json()).toMatchObject([{ text: "five" }]);
  });

  it("refuses invalid bodies with 400 naming `text`, never 500, and changes nothing", async () => {
    const path = commentsOf(issueId);
    const before = (await issue()).numComments;
    const invalid: unknown[] = [
      {},
      { text: "" },
      { text: "   \n " },
      { text: "x".repeat(10_001) },
      { text: 5 },
      { text: null },
      { text: ["a"] },
    ];
    for (const body of invalid) {
      const response = await send("POST", path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).errors.text, JSON.stringify(body)).toBeDefined();
    }
    for (const raw of ["[]", '"text"', "{not json", "null"]) {
      const response = await send("POST", path, raw);
      expect(response.status, raw).toBe(400);
      expect(typeof (await response.json()).detail).toBe("string");
    }
    const comment = await post("x".repeat(10_000), tokens.bob);
    expect(comment.text).toHaveLength(10_000);
    const response = await send("PUT", `${path}${comment.id}/`, { text: "" }, tokens.bob);
    expect(response.status).toBe(400);
    expect((await issue()).numComments).toBe(before + 1);
    await send("DELETE", `${path}${comment.id}/`, undefined, tokens.bob);
  });

  it("rolls the whole change back when a domain-event subscriber fails", async () => {
    const before = await issue();
    const response = await send("POST", commentsOf(issueId), { text: "explode" }, tokens.bob);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ detail: "Internal Error", errorId: expect.any(String) });
    expect(logged).toHaveLength(1);
    const after = await issue();
    expect(after.numComments).toBe(before.numComments);
    expect(after.activity[0]).toEqual(before.activity[0]);
    expect((await (await get(commentsOf(issueId))).json()).map((comment: Comment) => comment.text)).not.toContain(
      "explode",
    );
  });

  it("applies scopes and roles, and answers 404 for other organizations, unknown issues and comments", async () => {
    const path = commentsOf(issueId);
    const comment = await post("scoped", tokens.bob);
    const readOnly = await send("POST", path, { text: "no" }, tokens.reader);
    expect(readOnly.status).toBe(403);
    expect(await readOnly.json()).toMatchObject({ requiredScopes: ["event:write"] });
    expect((await send("PUT", `${path}${comment.id}/`, { text: "no" }, tokens.reader)).status).toBe(403);
    // A billing member's role grants no event scope, whatever the token says.
    expect((await send("POST", path, { text: "no" }, tokens.billing)).status).toBe(403);
    expect((await send("DELETE", `${path}${comment.id}/`, undefined, tokens.billing)).status).toBe(403);

    const notFound = [
      ["GET", commentsOf(issueId), globex.allScopesToken],
      ["GET", commentsOf(issueId, "globex"), globex.allScopesToken],
      ["POST", commentsOf(issueId, "globex"), globex.allScopesToken],
      ["PUT", `${commentsOf(issueId, "globex")}${comment.id}/`, globex.allScopesToken],
      ["DELETE", `${commentsOf(issueId, "globex")}${comment.id}/`, globex.allScopesToken],
      ["GET", commentsOf("999999"), acme.allScopesToken],
      ["POST", commentsOf("not-an-issue"), acme.allScopesToken],
      ["PUT", `${path}abc/`, acme.allScopesToken],
      ["PUT", `${path}999999/`, acme.allScopesToken],
      ["DELETE", `${path}${"9".repeat(30)}/`, acme.allScopesToken],
      // The comment exists, but on another issue.
      ["PUT", `${commentsOf(otherIssueId)}${comment.id}/`, acme.allScopesToken],
      ["DELETE", `${commentsOf(otherIssueId)}${comment.id}/`, acme.allScopesToken],
    ] as const;
    for (const [method, target, token] of notFound) {
      const response = method === "GET" ? await get(target, token) : await send(method, target, { text: "x" }, token);
      expect(response.status, `${method} ${target}`).toBe(404);
    }
    expect((await send("PATCH", `${path}${comment.id}/`, { text: "x" })).status).toBe(405);
    expect((await issue()).numComments).toBe(1);
  });
});
