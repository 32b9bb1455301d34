import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, type DomainEvent, SCOPES } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const TEAM_EVENTS = ["team.created", "team.updated", "team.deleted", "team.members_changed"];

describe("SCIM Groups ↔ teams", () => {
  const events: DomainEvent[] = [];
  const spy = definePlugin({
    id: "spy",
    on: Object.fromEntries(TEAM_EVENTS.map((name) => [name, (event: DomainEvent) => void events.push(event)])),
  });
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let token: string;
  let ownerToken: string;
  const people: Record<string, { id: string; userId: string }> = {};

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false, plugins: [spy] });
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme", plan: "enterprise", samlConfigured: true });
    const ada = await api.users.create({ username: "ada", email: "ada@acme.test", name: "Ada" });
    await api.members.add({ organization: "acme", user: ada.id, role: "owner" });
    ownerToken = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    const project = await api.projects.create({ organization: "acme", slug: "web" });
    await captureFor(instance.faultline, { id: project.id, organizationId: org.id })(errorEvent());
    token = (await api.scim.enable("acme")).token;
    server = await serveFaultline(instance.faultline);
    for (const name of ["alice", "bob", "carol", "dan"]) {
      const response = await scim("/Users", {
        method: "POST",
        body: { schemas: [USER], userName: `${name}@acme.test`, displayName: name[0]?.toUpperCase() + name.slice(1) },
      });
      const body = await response.json();
      people[name] = { id: body.id, userId: (await api.users.get(`${name}@acme.test`))?.id as string };
    }
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  function scim(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    return fetch(`${server.url}/api/0/organizations/acme/scim/v2${path}`, {
      method: init.method ?? "GET",
      headers: { ...bearer(token), "Content-Type": "application/scim+json", ...init.headers },
      body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
    });
  }
  const member = (name: string) => ({ value: people[name]?.id as string });
  const createGroup = async (displayName: string, members: string[] = [], extra: Record<string, unknown> = {}) => {
    const response = await scim("/Groups", {
      method: "POST",
      body: { schemas: [GROUP], displayName, members: members.map(member), ...extra },
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return response.json();
  };
  const patch = (id: string, ...Operations: unknown[]) =>
    scim(`/Groups/${id}`, { method: "PATCH", body: { schemas: [PATCH_OP], Operations } });
  const memberIds = (group: { members?: Array<{ value: string }> }) => (group.members ?? []).map((m) => m.value).sort();
  const ids = (...names: string[]) => names.map((name) => people[name]?.id as string).sort();
  const expectScimError = async (response: Response, status: number, scimType?: string) => {
    expect(response.status).toBe(status);
    const body = await response.json();
    expect(body).toMatchObject({ schemas: [ERROR], status: String(status) });
    if (scimType) expect(body.scimType).toBe(scimType);
    return body;
  };
  const eventsFor = (teamId: string) =>
    events.filter((e) => (e.payload as { team: { id: string } }).team.id === teamId);

  it("creates a team: 201, Location, members with display names, events", async () => {
    const response = await scim("/Groups", {
      method: "POST",
      body: {
        schemas: [GROUP],
        displayName: "Platform Team",
        externalId: "grp-1",
        members: [member("alice"), member("bob")],
      },
    });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(response.headers.get("location")).toBe(`${server.url}/api/0/organizations/acme/scim/v2/Groups/${body.id}`);
    expect(body).toEqual({
      schemas: [GROUP],
      id: expect.stringMatching(/^\d+$/),
      externalId: "grp-1",
      displayName: "Platform Team",
      members: [
        {
          value: people.alice?.id,
          display: "Alice",
          $ref: `${server.url}/api/0/organizations/acme/scim/v2/Users/${people.alice?.id}`,
          type: "User",
        },
        {
          value: people.bob?.id,
          display: "Bob",
          $ref: `${server.url}/api/0/organizations/acme/scim/v2/Users/${people.bob?.id}`,
          type: "User",
        },
      ],
      meta: {
        resourceType: "Group",
        created: expect.any(String),
        lastModified: expect.any(String),
        location: response.headers.get("location"),
        version: expect.any(String),
      },
    });
    expect(eventsFor(body.id).map((e) => [e.name, e.payload])).toEqual([
      [
        "team.created",
        { team: { id: body.id, slug: "platform-team", name: "Platform Team", externalId: "grp-1" }, resource: body },
      ],
      [
        "team.members_changed",
        { team: expect.objectContaining({ id: body.id }), added: [people.alice, people.bob], removed: [] },
      ],
    ]);
    // The team is a real team: issues can be assigned to it by its slug.
    const assigned = await fetch(`${server.url}/api/0/organizations/acme/issues/WEB-1/`, {
      method: "PUT",
      headers: { ...bearer(ownerToken), "Content-Type": "application/json" },
      body: JSON.stringify({ assignedTo: "#platform-team" }),
    });
    expect((await assigned.json()).assignedTo).toBe("Platform Team");
    // Members see their groups.
    expect((await (await scim(`/Users/${people.alice?.id}`)).json()).groups).toEqual([
      {
        value: body.id,
        display: "Platform Team",
        $ref: `${server.url}/api/0/organizations/acme/scim/v2/Groups/${body.id}`,
        type: "direct",
      },
    ]);
  });

  it("409 uniqueness for a displayName in any letter case or a taken externalId; invalid input → SCIM 400", async () => {
    await createGroup("Unique Name", [], { externalId: "grp-unique" });
    await expectScimError(
      await scim("/Groups", { method: "POST", body: { schemas: [GROUP], displayName: "UNIQUE name" } }),
      409,
      "uniqueness",
    );
    await expectScimError(
      await scim("/Groups", {
        method: "POST",
        body: { schemas: [GROUP], displayName: "Other", externalId: "grp-unique" },
      }),
      409,
      "uniqueness",
    );
    await expectScimError(await scim("/Groups", { method: "POST", body: { schemas: [GROUP] } }), 400, "invalidValue");
    await expectScimError(
      await scim("/Groups", { method: "POST", body: { schemas: [USER], displayName: "X" } }),
      400,
      "invalidSyntax",
    );
    await expectScimError(
      await scim("/Groups", { method: "POST", body: { schemas: [GROUP], displayName: "X", owner: "me" } }),
      400,
      "invalidSyntax",
    );
    await expectScimError(
      await scim("/Groups", {
        method: "POST",
        body: { schemas: [GROUP], displayName: "X", members: [{ value: "999999" }] },
      }),
      400,
      "invalidValue",
    );
    await expectScimError(
      await scim("/Groups", {
        method: "POST",
        body: { schemas: [GROUP], displayName: "X", members: [{ value: "alice" }] },
      }),
      400,
      "invalidValue",
    );
    await expectScimError(
      await scim("/Groups", { method: "POST", body: { schemas: [GROUP], displayName: 5 } }),
      400,
      "invalidValue",
    );
    // Same display name, different slug source: slugs stay unique.
    const a = await createGroup("Ops!");
    const b = await createGroup("Ops?");
    const slugs = [a, b].map(
      (group) =>
        (
          events.find((e) => e.name === "team.created" && (e.payload as { team: { id: string } }).team.id === group.id)
            ?.payload as { team: { slug: string } }
        ).team.slug,
    );
    expect(slugs).toEqual(["ops", "ops-2"]);
  });

  it("gets by id (excludedAttributes=members honoured); unknown id → 404", async () => {
    const group = await createGroup("Readers", ["carol"]);
    expect(memberIds(await (await scim(`/Groups/${group.id}`)).json())).toEqual(ids("carol"));
    const without = await (await scim(`/Groups/${group.id}?excludedAttributes=members`)).json();
    expect(without).not.toHaveProperty("members");
    expect(without.displayName).toBe("Readers");
    await expectScimError(await scim("/Groups/999999"), 404);
    await expectScimError(await scim("/Groups/abc"), 404);
  });

  it("lists with filters, paging and excludedAttributes=members", async () => {
    const all = await (await scim("/Groups")).json();
    expect(all).toMatchObject({ schemas: [LIST], startIndex: 1, totalResults: all.Resources.length });
    expect(all.Resources.every((group: { members?: unknown }) => Array.isArray(group.members))).toBe(true);
    const lean = await (await scim("/Groups?excludedAttributes=members&count=2&startIndex=2")).json();
    expect(lean).toMatchObject({ totalResults: all.totalResults, startIndex: 2, itemsPerPage: 2 });
    expect(lean.Resources.map((g: { id: string }) => g.id)).toEqual(
      all.Resources.slice(1, 3).map((g: { id: string }) => g.id),
    );
    expect(lean.Resources.some((group: object) => "members" in group)).toBe(false);
    const byName = await (
      await scim(`/Groups?filter=${encodeURIComponent('displayName eq "platform team"')}&excludedAttributes=members`)
    ).json();
    expect(byName.Resources.map((g: { displayName: string }) => g.displayName)).toEqual(["Platform Team"]);
    const byMember = await (
      await scim(
        `/Groups?filter=${encodeURIComponent(`members[value eq "${people.carol?.id}"]`)}&excludedAttributes=members`,
      )
    ).json();
    expect(byMember.Resources.map((g: { displayName: string }) => g.displayName)).toEqual(["Readers"]);
    expect(byMember.Resources[0]).not.toHaveProperty("members");
    const none = await (await scim(`/Groups?filter=${encodeURIComponent('displayName eq "Nope"')}`)).json();
    expect(none).toMatchObject({ totalResults: 0, itemsPerPage: 0, Resources: [] });
    await expectScimError(await scim(`/Groups?filter=${encodeURIComponent('userName eq "x"')}`), 400, "invalidFilter");
  });

  it("PATCH adds, removes (both dialects) and replaces members, and renames", async () => {
    const group = await createGroup("Patchers", ["alice"]);
    let response = await patch(group.id, { op: "add", path: "members", value: [member("bob"), member("carol")] });
    expect(memberIds(await response.json())).toEqual(ids("alice", "bob", "carol"));
    response = await patch(group.id, { op: "remove", path: `members[value eq "${people.bob?.id}"]` });
    expect(memberIds(await response.json())).toEqual(ids("alice", "carol"));
    response = await patch(group.id, { op: "Remove", path: "members", value: [member("alice")] });
    expect(memberIds(await response.json())).toEqual(ids("carol"));
    response = await patch(group.id, { op: "replace", path: "members", value: [member("dan"), member("bob")] });
    expect(memberIds(await response.json())).toEqual(ids("bob", "dan"));
    response = await patch(group.id, { op: "replace", value: { displayName: "Patchers Renamed" } });
    expect((await response.json()).displayName).toBe("Patchers Renamed");
    response = await patch(
      group.id,
      { op: "Replace", path: "displayName", value: "Patchers Again" },
      { op: "add", path: "externalId", value: "grp-patch" },
    );
    expect(await response.json()).toMatchObject({ displayName: "Patchers Again", externalId: "grp-patch" });
    // Removing someone who is not a member is a no-op.
    response = await patch(group.id, { op: "remove", path: `members[value eq "${people.alice?.id}"]` });
    expect(response.status).toBe(200);

    const changes = eventsFor(group.id)
      .filter((e) => e.name === "team.members_changed")
      .map((e) => e.payload as { added: unknown[]; removed: unknown[] });
    expect(changes).toEqual([
      { team: expect.any(Object), added: [people.alice], removed: [] },
      { team: expect.any(Object), added: [people.bob, people.carol], removed: [] },
      { team: expect.any(Object), added: [], removed: [people.bob] },
      { team: expect.any(Object), added: [], removed: [people.alice] },
      { team: expect.any(Object), added: [people.dan, people.bob], removed: [people.carol] },
    ]);
    const renames = eventsFor(group.id)
      .filter((e) => e.name === "team.updated")
      .map((e) => e.payload as { team: { name: string; slug: string }; previous: { name: string } });
    expect(renames.map((p) => [p.previous.name, p.team.name, p.team.slug])).toEqual([
      ["Patchers", "Patchers Renamed", "patchers"],
      ["Patchers Renamed", "Patchers Again", "patchers"],
    ]);
  });

  it("PATCH errors: unknown members, renames into a taken name, read-only paths — atomically", async () => {
    const group = await createGroup("Atomic", ["alice"]);
    await expectScimError(
      await patch(
        group.id,
        { op: "replace", path: "displayName", value: "Changed" },
        { op: "add", path: "members", value: [{ value: "999999" }] },
      ),
      400,
      "invalidValue",
    );
    await expectScimError(
      await patch(group.id, { op: "replace", path: "displayName", value: "platform TEAM" }),
      409,
      "uniqueness",
    );
    await expectScimError(await patch(group.id, { op: "replace", path: "id", value: "1" }), 400, "mutability");
    await expectScimError(
      await patch(group.id, { op: "replace", path: "meta.lastModified", value: "2020-01-01T00:00:00Z" }),
      400,
      "mutability",
    );
    await expectScimError(await patch(group.id, { op: "remove", path: "nonsense" }), 400, "invalidPath");
    await expectScimError(await patch(group.id, { op: "remove" }), 400, "noTarget");
    await expectScimError(
      await patch(group.id, { op: "replace", path: "displayName", value: "" }),
      400,
      "invalidValue",
    );
    await expectScimError(await patch("999999", { op: "replace", path: "displayName", value: "X" }), 404);
    expect(await (await scim(`/Groups/${group.id}`)).json()).toMatchObject({
      displayName: "Atomic",
      members: [expect.objectContaining({ value: people.alice?.id })],
    });
  });

  it("PUT replaces name and members (absent members empty the team)", async () => {
    const group = await createGroup("Putters", ["alice", "bob"]);
    let response = await scim(`/Groups/${group.id}`, {
      method: "PUT",
      body: { schemas: [GROUP], id: "ignored", displayName: "Putters 2", members: [member("carol")] },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: group.id,
      displayName: "Putters 2",
      members: [expect.objectContaining({ value: people.carol?.id })],
    });
    response = await scim(`/Groups/${group.id}`, {
      method: "PUT",
      body: { schemas: [GROUP], displayName: "Putters 2" },
    });
    expect((await response.json()).members).toEqual([]);
  });

  it("DELETE removes the team, not its members; issues assigned to it are unassigned", async () => {
    const group = await createGroup("Doomed", ["dan"]);
    const issue = `${server.url}/api/0/organizations/acme/issues/WEB-1/`;
    const assign = await fetch(issue, {
      method: "PUT",
      headers: { ...bearer(ownerToken), "Content-Type": "application/json" },
      body: JSON.stringify({ assignedTo: "#doomed" }),
    });
    expect((await assign.json()).assignedTo).toBe("Doomed");
    const response = await scim(`/Groups/${group.id}`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect((await (await fetch(issue, { headers: bearer(ownerToken) })).json()).assignedTo).toBeNull();
    await expectScimError(await scim(`/Groups/${group.id}`), 404);
    expect((await scim(`/Users/${people.dan?.id}`)).status).toBe(200);
    expect(eventsFor(group.id).at(-1)).toMatchObject({
      name: "team.deleted",
      payload: { team: { id: group.id, name: "Doomed", slug: "doomed" } },
    });
    await expectScimError(await scim(`/Groups/${group.id}`, { method: "DELETE" }), 404);
  });

  it("scopes: Groups need team:* scopes; other methods on the collection → 405", async () => {
    const { api } = instance.faultline;
    const ada = await api.users.get("ada");
    const memberOnly = (await api.tokens.create({ user: ada?.id as string, scopes: ["member:admin"] })).token;
    const response = await fetch(`${server.url}/api/0/organizations/acme/scim/v2/Groups`, {
      headers: bearer(memberOnly),
    });
    await expectScimError(response, 403);
    const teamRead = (await api.tokens.create({ user: ada?.id as string, scopes: ["team:read"] })).token;
    expect(
      (await fetch(`${server.url}/api/0/organizations/acme/scim/v2/Groups`, { headers: bearer(teamRead) })).status,
    ).toBe(200);
    const group = await createGroup("Scoped");
    await expectScimError(
      await fetch(`${server.url}/api/0/organizations/acme/scim/v2/Groups/${group.id}`, {
        method: "DELETE",
        headers: bearer(teamRead),
      }),
      403,
    );
    const notAllowed = await scim("/Groups", { method: "PATCH", body: { schemas: [PATCH_OP], Operations: [] } });
    expect(notAllowed.headers.get("allow")).toBe("GET, HEAD, POST");
    await expectScimError(notAllowed, 405);
  });
});
