import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, type DomainEvent, SCOPES } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

const nodeEvent = JSON.parse(readFileSync(new URL("../fixtures/node-event.json", import.meta.url), "utf8")) as Record<string, unknown>;

describe("events API, hashes and comments", () => {
  const seen: DomainEvent[] = [];
  const spy = definePlugin({
    id: "comment-spy",
    on: {
      "comment.created": (e) => void seen.push(e),
      "comment.updated": (e) => void seen.push(e),
      "comment.deleted": (e) => void seen.push(e),
    },
  });
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let ada: string;
  let bob: string;
  let orgToken: string;
  let eve: string;
  let issueId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    instance = await createTestInstance({ plugins: [spy], worker: false });
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme" });
    for (const [name, role] of [["ada", "owner"], ["bob", "member"]] as const) {
      await api.users.create({ username: name, email: `${name}@acme.test` });
      await api.members.add({ organization: "acme", user: name, role });
    }
    ada = (await api.tokens.create({ user: "ada", scopes: [...SCOPES] })).token;
    bob = (await api.tokens.create({ user: "bob", scopes: ["event:write"] })).token;
    orgToken = (await api.tokens.create({ organization: "acme", scopes: ["event:write"] })).token;
    await api.organizations.create({ slug: "globex" });
    await api.users.create({ username: "eve" });
    await api.members.add({ organization: "globex", user: "eve", role: "owner" });
    eve = (await api.tokens.create({ user: "eve", scopes: [...SCOPES] })).token;
    const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    await api.projects.create({ organization: "acme", slug: "other" });
    const capture = captureFor(instance.faultline, { id: project.id, organizationId: org.id });
    for (let i = 0; i < 3; i++) {
      const { eventId } = await capture({ ...nodeEvent, event_id: undefined, timestamp: 1_763_800_000 + i }, new Date((1_763_800_000 + i) * 1000));
      ids.push(eventId);
    }
    server = await serveFaultline(instance.faultline);
    const list = await (await fetch(`${server.url}/api/0/organizations/acme/issues/?query=`, { headers: bearer(ada) })).json();
    issueId = list[0].id;
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const get = (path: string, token = ada) => fetch(`${server.url}${path}`, { headers: bearer(token) });
  const send = (method: string, path: string, body: unknown, token = ada) =>
    fetch(`${server.url}${path}`, { method, headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify(body) });

  it("retrieves an event with entries, tags, user, contexts and neighbours; dashed ids accepted", async () => {
    const [first, middle, last] = ids as [string, string, string];
    const dashed = `${middle.slice(0, 8)}-${middle.slice(8, 12)}-${middle.slice(12, 16)}-${middle.slice(16, 20)}-${middle.slice(20)}`;
    const response = await get(`/api/0/projects/acme/web/events/${dashed}/`);
    expect(response.status).toBe(200);
    const event = await response.json();
    expect(event).toMatchObject({ id: middle, eventID: middle, groupID: issueId, title: "Error: probe failure", level: "error", platform: "node", previousEventID: first, nextEventID: last });
    expect(event.user).toMatchObject({ id: "u1" });
    expect(event.tags).toContainEqual({ key: "probe", value: "yes" });
    expect(event.contexts).toHaveProperty("runtime");
    const exception = event.entries.find((e: { type: string }) => e.type === "exception");
    const frame = exception.data.values[0].stacktrace.frames.find((f: { inApp: boolean }) => f.inApp);
    expect(frame).toMatchObject({ filename: "/srv/app/server.mjs", lineNo: 27, colNo: 36, inApp: true });
    expect(frame.context).toContainEqual([27, expect.stringContaining("probe failure")]);
    expect(event.fingerprints).toHaveLength(1);
    expect(event.dateCreated).toBe(new Date((1_763_800_000 + 1) * 1000).toISOString());
  });

  it("serves the raw event, and 404s for unknown events, other projects and other organizations", async () => {
    const raw = await (await get(`/api/0/projects/acme/web/events/${ids[0]}/json/`)).json();
    expect(raw.exception.values[0].value).toBe("probe failure");
    for (const [path, token] of [
      [`/api/0/projects/acme/web/events/${"0".repeat(32)}/`, ada],
      [`/api/0/projects/acme/web/events/not-an-id/`, ada],
      [`/api/0/projects/acme/other/events/${ids[0]}/`, ada],
      [`/api/0/projects/globex/web/events/${ids[0]}/`, eve],
    ] as const) {
      const response = await get(path, token);
      expect(response.status, path).toBe(404);
    }
    expect(await (await get(`/api/0/projects/acme/web/events/${"0".repeat(32)}/`)).json()).toEqual({ detail: "Event not found" });
  });

  it("lists the issue's hashes with their latest event", async () => {
    const response = await get(`/api/0/organizations/acme/issues/${issueId}/hashes/`);
    const hashes = await response.json();
    expect(hashes).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{32}$/), latestEvent: expect.objectContaining({ eventID: ids[2], groupID: issueId, title: "Error: probe failure" }) }]);
    expect(response.headers.get("link")).toContain('rel="next"');
  });

  it("creates, lists, edits and deletes comments with the author/admin rule, count, activity and domain events", async () => {
    const path = `/api/0/organizations/acme/issues/${issueId}/comments/`;
    const created = await send("POST", path, { text: "Looking into it" }, bob);
    expect(created.status).toBe(201);
    const comment = await created.json();
    expect(comment).toMatchObject({ issueId, text: "Looking into it", user: { username: expect.any(String) } });
    const issue = await (await get(`/api/0/organizations/acme/issues/${issueId}/`)).json();
    expect(issue.numComments).toBe(1);
    expect(issue.activity[0]).toMatchObject({ type: "note", data: { text: "Looking into it" } });
    expect((await (await get(path)).json())[0]).toMatchObject({ id: comment.id, user: { username: "bob" } });

    expect((await send("PUT", `${path}${comment.id}/`, { text: "by someone else" }, orgToken)).status).toBe(403);
    const edited = await send("PUT", `${path}${comment.id}/`, { text: "Fixed in 1.2" }, bob);
    expect((await edited.json()).text).toBe("Fixed in 1.2");
    const fromOrgToken = await (await send("POST", path, { text: "bot note" }, orgToken)).json();
    expect(fromOrgToken.user).toBeNull();
    expect((await send("DELETE", `${path}${fromOrgToken.id}/`, {}, bob)).status).toBe(403);
    expect((await send("DELETE", `${path}${fromOrgToken.id}/`, {}, ada)).status).toBe(204);
    expect((await send("DELETE", `${path}${comment.id}/`, {}, bob)).status).toBe(204);
    expect((await send("DELETE", `${path}${comment.id}/`, {}, bob)).status).toBe(404);
    expect((await (await get(`/api/0/organizations/acme/issues/${issueId}/`)).json()).numComments).toBe(0);
    expect(seen.map((e) => e.name)).toEqual(["comment.created", "comment.updated", "comment.created", "comment.deleted", "comment.deleted"]);
    expect(seen[0]?.actor).toMatchObject({ type: "user" });
  });

  it("refuses bad comment bodies with 400 and other organizations with 404", async () => {
    const path = `/api/0/organizations/acme/issues/${issueId}/comments/`;
    for (const body of [{}, { text: "" }, { text: "x".repeat(10_001) }, { text: 5 }]) {
      const response = await send("POST", path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).errors.text).toBeDefined();
    }
    expect((await send("POST", `/api/0/organizations/globex/issues/${issueId}/comments/`, { text: "x" }, eve)).status).toBe(404);
    expect((await get(`/api/0/organizations/globex/issues/${issueId}/hashes/`, eve)).status).toBe(404);
  });
});
