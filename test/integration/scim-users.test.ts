import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, type DomainEvent, SCOPES, tokens } from "../../src/index.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { captureFor, errorEvent } from "../helpers/events.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import { silentLogger } from "../../src/logging/logger.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const MEMBER_EVENTS = [
  "member.provisioned",
  "member.updated",
  "member.deactivated",
  "member.reactivated",
  "member.removed",
];

describe("SCIM Users ↔ organization members", () => {
  const events: DomainEvent[] = [];
  const spy = definePlugin({
    id: "spy",
    on: {
      ...Object.fromEntries(MEMBER_EVENTS.map((name) => [name, (event: DomainEvent) => void events.push(event)])),
      // A host subscriber that fails: the request must answer a SCIM 500 and roll back.
      "member.provisioned": (event: DomainEvent<"member.provisioned">) => {
        if (event.payload.member.userName === "explode@acme.test") throw new Error("host mirror is down");
        events.push(event);
      },
    },
  });
  let instance: TestInstance<[typeof spy]>;
  let server: RunningServer;
  let scimToken: string;
  let ownerToken: string;
  let ownerMemberId: string;

  beforeAll(async () => {
    instance = await createTestInstance({
      worker: false,
      plugins: [spy],
      logger: silentLogger,
      limits: { bodyBytes: 64 * 1024 },
    });
    const { api } = instance.faultline;
    const org = await api.organizations.create({ slug: "acme", plan: "business", samlConfigured: true });
    const ada = await api.users.create({ username: "ada", email: "ada@acme.test", name: "Ada Lovelace" });
    ownerMemberId = (await api.members.add({ organization: "acme", user: ada.id, role: "owner" })).id;
    ownerToken = (await api.tokens.create({ user: ada.id, scopes: [...SCOPES] })).token;
    const project = await api.projects.create({ organization: "acme", slug: "web", platform: "node" });
    await captureFor(instance.faultline, { id: project.id, organizationId: org.id })(errorEvent());
    scimToken = (await api.scim.enable("acme")).token;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  const scim = (
    path: string,
    init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${server.url}/api/0/organizations/acme/scim/v2${path}`, {
      method: init.method ?? "GET",
      headers: { ...bearer(init.token ?? scimToken), "Content-Type": "application/scim+json", ...init.headers },
      body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
    });
  const provision = async (userName: string, extra: Record<string, unknown> = {}) => {
    const response = await scim("/Users", {
      method: "POST",
      body: { schemas: [USER], userName, emails: [{ value: userName, type: "work", primary: true }], ...extra },
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return response.json();
  };
  const patch = (id: string, ...Operations: unknown[]) =>
    scim(`/Users/${id}`, { method: "PATCH", body: { schemas: [PATCH_OP], Operations } });
  const expectScimError = async (response: Response, status: number, scimType?: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    const body = await response.json();
    expect(body).toMatchObject({ schemas: [ERROR], status: String(status), detail: expect.any(String) });
    if (scimType) expect(body.scimType).toBe(scimType);
    else expect(body.scimType).toBeUndefined();
    return body;
  };

  describe("create, read, replace", () => {
    it("provisions a member: 201, Location, the resource with the enterprise extension, a new user account", async () => {
      const response = await scim("/Users", {
        method: "POST",
        body: {
          schemas: [USER, ENTERPRISE],
          externalId: "00u1",
          userName: "Grace.Hopper@acme.test",
          name: { givenName: "Grace", familyName: "Hopper", formatted: "Grace Hopper" },
          displayName: "Grace Hopper",
          emails: [{ value: "grace@acme.test", type: "work", primary: true }],
          active: true,
          password: "never stored",
          groups: [],
          [ENTERPRISE]: { employeeNumber: "1906", department: "Navy", manager: { value: ownerMemberId } },
        },
      });
      expect(response.status).toBe(201);
      expect(response.headers.get("content-type")).toBe("application/scim+json; charset=utf-8");
      const body = await response.json();
      expect(response.headers.get("location")).toBe(`${server.url}/api/0/organizations/acme/scim/v2/Users/${body.id}`);
      expect(body).toEqual({
        schemas: [USER, ENTERPRISE],
        id: expect.stringMatching(/^\d+$/),
        externalId: "00u1",
        userName: "Grace.Hopper@acme.test",
        name: { givenName: "Grace", familyName: "Hopper", formatted: "Grace Hopper" },
        displayName: "Grace Hopper",
        emails: [{ value: "grace@acme.test", type: "work", primary: true }],
        active: true,
        svcOrgRole: "member",
        sentryOrgRole: "member",
        groups: [],
        [ENTERPRISE]: { employeeNumber: "1906", department: "Navy", manager: { value: ownerMemberId } },
        meta: {
          resourceType: "User",
          created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          lastModified: body.meta.created,
          location: response.headers.get("location"),
          version: expect.stringMatching(/^W\/"\d+"$/),
        },
      });
      const account = await instance.faultline.api.users.get("grace@acme.test");
      expect(account).toMatchObject({
        username: "Grace.Hopper@acme.test",
        email: "grace@acme.test",
        name: "Grace Hopper",
      });
      const event = events.find(
        (e) => e.name === "member.provisioned" && (e.payload as { member: { id: string } }).member.id === body.id,
      );
      expect(event).toMatchObject({
        organizationId: expect.any(Number),
        actor: { type: "application", id: "scim", name: "SCIM" },
        payload: {
          member: {
            id: body.id,
            userId: account?.id,
            userName: "Grace.Hopper@acme.test",
            externalId: "00u1",
            email: "grace@acme.test",
            givenName: "Grace",
            familyName: "Hopper",
            role: "member",
            active: true,
            department: "Navy",
            employeeNumber: "1906",
          },
          resource: { id: body.id, userName: "Grace.Hopper@acme.test" },
        },
      });
    });

    it("links an existing user account that has the email instead of creating another", async () => {
      const existing = await instance.faultline.api.users.create({
        username: "linus",
        email: "Linus@Acme.test",
        name: "Linus",
      });
      const created = await provision("linus@acme.test");
      const event = events.find(
        (e) => e.name === "member.provisioned" && (e.payload as { member: { id: string } }).member.id === created.id,
      );
      expect((event?.payload as { member: { userId: string } }).member.userId).toBe(existing.id);
    });

    it("gets by id; an unknown or malformed id → 404 SCIM error", async () => {
      const created = await provision("get.me@acme.test");
      const response = await scim(`/Users/${created.id}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(created);
      await expectScimError(await scim("/Users/999999"), 404);
      await expectScimError(await scim("/Users/not-a-number"), 404);
      await expectScimError(await scim("/Users/99999999999999999999"), 404);
    });

    it("409 uniqueness for a userName in another letter case, or a taken externalId; 400 invalidValue without userName", async () => {
      await provision("dup@acme.test", { externalId: "ext-dup" });
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], userName: "DUP@ACME.TEST" } }),
        409,
        "uniqueness",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER], userName: "other@acme.test", externalId: "ext-dup" },
        }),
        409,
        "uniqueness",
      );
      // A host-added member is found by its email too.
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], userName: "Ada@Acme.Test" } }),
        409,
        "uniqueness",
      );
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], name: { givenName: "No" } } }),
        400,
        "invalidValue",
      );
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], userName: "   " } }),
        400,
        "invalidValue",
      );
    });

    it("PUT replaces the attributes (id and meta ignored); absent active and svcOrgRole keep their values", async () => {
      const created = await provision("put.me@acme.test", {
        name: { givenName: "Put", familyName: "Me" },
        title: "Engineer",
        svcOrgRole: "admin",
      });
      const response = await scim(`/Users/${created.id}`, {
        method: "PUT",
        body: {
          schemas: [USER],
          id: "1",
          meta: { resourceType: "Group" },
          userName: "put.me@acme.test",
          name: { givenName: "Put" },
          emails: [{ value: "new@acme.test", primary: true }],
        },
      });
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body).toMatchObject({
        id: created.id,
        userName: "put.me@acme.test",
        name: { givenName: "Put" },
        emails: [{ value: "new@acme.test", primary: true }],
        active: true,
        svcOrgRole: "admin",
      });
      expect(body.title).toBeUndefined();
      expect(body.meta.resourceType).toBe("User");
      await expectScimError(
        await scim("/Users/999999", { method: "PUT", body: { schemas: [USER], userName: "x@acme.test" } }),
        404,
      );
      await expectScimError(
        await scim(`/Users/${created.id}`, {
          method: "PUT",
          body: { schemas: [USER], userName: "grace.hopper@acme.test" },
        }),
        409,
        "uniqueness",
      );
    });

    it("POST without schemas (Entra, Okta) assumes the User schema; sentryOrgRole is svcOrgRole's Sentry spelling", async () => {
      const response = await scim("/Users", {
        method: "POST",
        body: { userName: "no.schemas@acme.test", sentryOrgRole: "Admin" },
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({
        userName: "no.schemas@acme.test",
        svcOrgRole: "admin",
        sentryOrgRole: "admin",
      });
    });

    it("svcOrgRole sets the organization role (member by default; never owner)", async () => {
      const manager = await provision("role.manager@acme.test", { svcOrgRole: "Manager" });
      expect(manager.svcOrgRole).toBe("manager");
      expect(
        (await (await patch(manager.id, { op: "replace", path: "svcOrgRole", value: "billing" })).json()).svcOrgRole,
      ).toBe("billing");
      await expectScimError(
        await patch(manager.id, { op: "replace", path: "svcOrgRole", value: "owner" }),
        400,
        "invalidValue",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER], userName: "r@acme.test", svcOrgRole: "superuser" },
        }),
        400,
        "invalidValue",
      );
    });
  });

  describe("deactivation, reactivation, removal", () => {
    const issuePath = () => `${server.url}/api/0/organizations/acme/issues/WEB-1/`;
    const assign = (assignedTo: string) =>
      fetch(issuePath(), {
        method: "PUT",
        headers: { ...bearer(ownerToken), "Content-Type": "application/json" },
        body: JSON.stringify({ assignedTo }),
      });

    it("active:false keeps the member listed and readable but takes their access; active:true restores it", async () => {
      const carol = await provision("carol@acme.test", { name: { givenName: "Carol", familyName: "Shaw" } });
      const account = await instance.faultline.api.users.get("carol@acme.test");
      const carolToken = (
        await instance.faultline.api.tokens.create({ user: account?.id as string, scopes: ["org:read", "event:read"] })
      ).token;
      const orgAsCarol = () => fetch(`${server.url}/api/0/organizations/acme/`, { headers: bearer(carolToken) });
      expect((await orgAsCarol()).status).toBe(200);
      expect((await assign("carol@acme.test")).status).toBe(200);
      expect((await assign("")).status).toBe(200);

      const deactivated = await patch(carol.id, { op: "replace", value: { active: false } });
      expect(deactivated.status).toBe(200);
      expect((await deactivated.json()).active).toBe(false);
      expect(await (await scim(`/Users/${carol.id}`)).json()).toMatchObject({
        id: carol.id,
        active: false,
        name: { givenName: "Carol" },
      });
      const listed = await (await scim(`/Users?filter=${encodeURIComponent('userName eq "carol@acme.test"')}`)).json();
      expect(listed.Resources).toEqual([expect.objectContaining({ id: carol.id, active: false })]);
      expect((await orgAsCarol()).status).toBe(404);
      const refused = await assign("carol@acme.test");
      expect(refused.status).toBe(400);
      expect((await refused.json()).errors).toEqual({ assignedTo: ["Unknown actor input"] });

      const reactivated = await patch(carol.id, { op: "replace", path: "active", value: true });
      expect((await reactivated.json()).active).toBe(true);
      expect((await orgAsCarol()).status).toBe(200);
      expect((await assign("carol@acme.test")).status).toBe(200);

      const names = events
        .filter((e) => (e.payload as { member?: { id: string } }).member?.id === carol.id)
        .map((e) => e.name);
      expect(names).toEqual([
        "member.provisioned",
        "member.updated",
        "member.deactivated",
        "member.updated",
        "member.reactivated",
      ]);
      const deactivation = events.find(
        (e) => e.name === "member.deactivated" && (e.payload as { member: { id: string } }).member.id === carol.id,
      );
      expect(deactivation?.payload).toMatchObject({
        member: { active: false, userId: account?.id },
        resource: { active: false },
      });
    });

    it("DELETE removes the membership and team memberships, keeps the user account; a later GET → 404", async () => {
      const dave = await provision("dave@acme.test");
      const team = await (
        await scim("/Groups", {
          method: "POST",
          body: {
            schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
            displayName: "Dave's team",
            members: [{ value: dave.id }],
          },
        })
      ).json();
      expect(team.members).toEqual([expect.objectContaining({ value: dave.id })]);
      const response = await scim(`/Users/${dave.id}`, { method: "DELETE" });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe("");
      await expectScimError(await scim(`/Users/${dave.id}`), 404);
      await expectScimError(await scim(`/Users/${dave.id}`, { method: "DELETE" }), 404);
      expect(await instance.faultline.api.users.get("dave@acme.test")).toMatchObject({ email: "dave@acme.test" });
      expect((await (await scim(`/Groups/${team.id}`)).json()).members).toEqual([]);
      const db = instance.faultline.container.resolve(tokens.Db);
      expect(
        await db.selectFrom("team_members").selectAll().where("member_id", "=", Number(dave.id)).execute(),
      ).toEqual([]);
      const removed = events.find((e) => e.name === "member.removed");
      expect(removed?.payload).toMatchObject({
        member: { id: dave.id, userName: "dave@acme.test" },
        resource: { id: dave.id },
      });
      // Provisioning the same person again links the kept account.
      const again = await provision("dave@acme.test");
      expect(again.id).not.toBe(dave.id);
    });

    it("the only owner cannot be removed, deactivated or demoted (403)", async () => {
      await expectScimError(await scim(`/Users/${ownerMemberId}`, { method: "DELETE" }), 403);
      await expectScimError(await patch(ownerMemberId, { op: "replace", path: "active", value: false }), 403);
      await expectScimError(await patch(ownerMemberId, { op: "replace", path: "svcOrgRole", value: "member" }), 403);
      // Changing an owner's other attributes is fine, and the owner role is kept.
      const renamed = await patch(ownerMemberId, { op: "replace", path: "title", value: "Countess" });
      expect(await renamed.json()).toMatchObject({ title: "Countess", svcOrgRole: "owner", active: true });
    });

    it("a failing host subscriber answers a SCIM 500 and nothing is kept", async () => {
      const response = await scim("/Users", {
        method: "POST",
        body: { schemas: [USER], userName: "explode@acme.test" },
      });
      const body = await expectScimError(response, 500);
      expect(body.detail).toMatch(/^Internal Error \(errorId [0-9a-f]{32}\)$/);
      const found = await (await scim(`/Users?filter=${encodeURIComponent('userName eq "explode@acme.test"')}`)).json();
      expect(found.totalResults).toBe(0);
      expect(await instance.faultline.api.users.get("explode@acme.test")).toBeNull();
    });
  });

  describe("lists and paging", () => {
    let total: number;
    beforeAll(async () => {
      total = (await (await scim("/Users?count=0")).json()).totalResults;
    });

    it("answers a ListResponse with numeric totals, in id order", async () => {
      const body = await (await scim("/Users")).json();
      expect(body).toMatchObject({ schemas: [LIST], totalResults: total, startIndex: 1, itemsPerPage: total });
      const ids = body.Resources.map((r: { id: string }) => Number(r.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });

    it.each([
      ["count=0", 1, 0],
      ["count=-3", 1, 0],
      ["startIndex=0&count=2", 1, 2],
      ["startIndex=-5&count=2", 1, 2],
      ["startIndex=2&count=1", 2, 1],
      ["startIndex=1000&count=5", 1000, 0],
    ])("%s → startIndex %i, %i resources", async (query, startIndex, count) => {
      const body = await (await scim(`/Users?${query}`)).json();
      expect(body).toMatchObject({ totalResults: total, startIndex, itemsPerPage: count });
      expect(body.Resources).toHaveLength(count);
    });

    it("pages are consecutive: startIndex=2 begins where startIndex=1&count=1 ended", async () => {
      const all = (await (await scim("/Users")).json()).Resources.map((r: { id: string }) => r.id);
      const second = (await (await scim("/Users?startIndex=2&count=2")).json()).Resources.map(
        (r: { id: string }) => r.id,
      );
      expect(second).toEqual(all.slice(1, 3));
    });

    it("count over 100 is capped at 100", async () => {
      const { api } = instance.faultline;
      await api.organizations.create({ slug: "big", plan: "enterprise", samlConfigured: true });
      for (let i = 0; i < 105; i++) {
        const user = await api.users.create({ username: `big-${i}`, email: `big-${i}@big.test` });
        await api.members.add({ organization: "big", user: user.id });
      }
      const bigToken = (await api.scim.enable("big")).token;
      const response = await fetch(`${server.url}/api/0/organizations/big/scim/v2/Users?count=1000`, {
        headers: bearer(bigToken),
      });
      const body = await response.json();
      expect(body).toMatchObject({ totalResults: 105, startIndex: 1, itemsPerPage: 100 });
      const rest = await (
        await fetch(`${server.url}/api/0/organizations/big/scim/v2/Users?startIndex=101`, { headers: bearer(bigToken) })
      ).json();
      expect(rest).toMatchObject({ totalResults: 105, startIndex: 101, itemsPerPage: 5 });
      expect(rest.Resources[0].userName).toBe("big-100@big.test");
    });

    it("non-integer paging parameters → 400 invalidValue", async () => {
      await expectScimError(await scim("/Users?count=ten"), 400, "invalidValue");
      await expectScimError(await scim("/Users?startIndex=1.5"), 400, "invalidValue");
    });

    it("attributes and excludedAttributes shape the resources (id and schemas always)", async () => {
      await provision("shape@acme.test", {
        name: { givenName: "Sha", familyName: "Pe" },
        [ENTERPRISE]: { department: "Forms" },
        schemas: [USER, ENTERPRISE],
      });
      const filter = `filter=${encodeURIComponent('userName eq "shape@acme.test"')}`;
      const only = (
        await (await scim(`/Users?${filter}&attributes=userName,name.givenName,${ENTERPRISE}:department`)).json()
      ).Resources[0];
      expect(only).toEqual({
        schemas: [USER, ENTERPRISE],
        id: expect.any(String),
        userName: "shape@acme.test",
        name: { givenName: "Sha" },
        [ENTERPRISE]: { department: "Forms" },
      });
      const without = (await (await scim(`/Users?${filter}&excludedAttributes=groups,emails,meta,id`)).json())
        .Resources[0];
      expect(without.id).toEqual(only.id);
      expect(without).not.toHaveProperty("groups");
      expect(without).not.toHaveProperty("emails");
      expect(without).not.toHaveProperty("meta");
      expect(without.userName).toBe("shape@acme.test");
      const one = await (await scim(`/Users/${only.id}?attributes=emails.value`)).json();
      expect(one).toEqual({ schemas: [USER, ENTERPRISE], id: only.id, emails: [{ value: "shape@acme.test" }] });
    });
  });

  describe("filters", () => {
    const ids = async (filter: string) => {
      const response = await scim(`/Users?filter=${encodeURIComponent(filter)}`);
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()).Resources.map((r: { userName: string }) => r.userName).sort();
    };
    beforeAll(async () => {
      await provision("f.one@filter.test", {
        externalId: "F-1",
        displayName: "Filter One",
        title: "Lead",
        emails: [
          { value: "one@work.test", type: "work" },
          { value: "one@home.test", type: "home" },
        ],
      });
      await provision("f.two@filter.test", {
        externalId: "f-2",
        displayName: "Filter Two",
        emails: [{ value: "two@work.test", type: "home" }],
        active: false,
      });
    });

    it("supports the attributes IdPs filter on, operators and attribute names in any case", async () => {
      expect(await ids('USERNAME EQ "F.ONE@FILTER.TEST"')).toEqual(["f.one@filter.test"]);
      expect(await ids('externalId eq "F-1"')).toEqual(["f.one@filter.test"]);
      expect(await ids('externalId eq "f-1"')).toEqual([]); // externalId is caseExact
      expect(await ids('emails.value eq "TWO@work.test"')).toEqual(["f.two@filter.test"]);
      expect(await ids('displayName sw "filter" and active eq false')).toEqual(["f.two@filter.test"]);
      expect(await ids('userName ew "@filter.test" and not (title pr)')).toEqual(["f.two@filter.test"]);
      expect(await ids('emails[type eq "work" and value co "work"] and userName co "filter"')).toEqual([
        "f.one@filter.test",
      ]);
      // The same email must be both "home" and at work.test: only f.two has one.
      expect(await ids('emails[type eq "home"].value ew "@work.test"')).toEqual(["f.two@filter.test"]);
      expect(await ids(`meta.lastModified gt "2000-01-01T00:00:00Z" and userName sw "f."`)).toEqual([
        "f.one@filter.test",
        "f.two@filter.test",
      ]);
      expect(
        await ids(
          '(userName eq "f.one@filter.test" or userName eq "f.two@filter.test") and emails.value ne "one@home.test"',
        ),
      ).toEqual(["f.two@filter.test"]);
      expect(await ids('userName eq "nobody@filter.test"')).toEqual([]);
    });

    it.each([
      ['userName eq "x" and'],
      ["userName eq x"],
      ['favouriteColour eq "red"'],
      ['name eq "x"'],
      ["active gt true"],
      ['active eq "maybe"'],
      ['meta.lastModified gt "yesterday"'],
      ['meta.lastModified co "2020"'],
      ['meta.location eq "x"'],
      ["userName eq true"],
      ['emails[colour eq "red"]'],
      ['urn:example:params:scim:schemas:custom:1.0:User:x eq "y"'],
    ])("%s → 400 invalidFilter", async (filter) => {
      await expectScimError(await scim(`/Users?filter=${encodeURIComponent(filter)}`), 400, "invalidFilter");
    });
  });

  describe("filter property: SQL selects what an in-memory evaluation selects", () => {
    type Resource = Record<string, unknown> & { id: string };
    type Node =
      | { kind: "and" | "or"; left: Node; right: Node }
      | { kind: "not"; node: Node }
      | { kind: "leaf"; spec: Spec; op: string; value: unknown }
      | { kind: "emails"; node: Node };
    interface Spec {
      path: string;
      type: "text" | "boolean" | "date";
      caseExact?: boolean;
      values(resource: Record<string, unknown>): unknown[];
      /** `pr` on a multi-valued attribute without a sub-attribute. */
      present?(resource: Record<string, unknown>): boolean;
    }
    const get = (keys: string[]) => (resource: Record<string, unknown>) => {
      const value = keys.reduce<unknown>(
        (node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined),
        resource,
      );
      return value === undefined || value === null ? [] : [value];
    };
    const emails = (resource: Record<string, unknown>) =>
      Array.isArray(resource.emails) ? (resource.emails as Array<Record<string, unknown>>) : [];
    const fromEmails = (key: string) => (resource: Record<string, unknown>) =>
      emails(resource).flatMap((email) => (email[key] === undefined ? [] : [email[key]]));
    const SPECS: Spec[] = [
      { path: "userName", type: "text", values: get(["userName"]) },
      { path: "externalId", type: "text", caseExact: true, values: get(["externalId"]) },
      { path: "id", type: "text", caseExact: true, values: get(["id"]) },
      { path: "displayName", type: "text", values: get(["displayName"]) },
      { path: "title", type: "text", values: get(["title"]) },
      { path: "name.givenName", type: "text", values: get(["name", "givenName"]) },
      { path: "name.familyName", type: "text", values: get(["name", "familyName"]) },
      { path: `${ENTERPRISE}:department`, type: "text", values: get([ENTERPRISE, "department"]) },
      { path: "emails.value", type: "text", values: fromEmails("value") },
      { path: "emails.type", type: "text", values: fromEmails("type") },
      { path: "emails", type: "text", values: fromEmails("value"), present: (resource) => emails(resource).length > 0 },
      { path: "emails.primary", type: "boolean", values: fromEmails("primary") },
      { path: "active", type: "boolean", values: get(["active"]) },
      { path: "meta.lastModified", type: "date", values: get(["meta", "lastModified"]) },
    ];
    const ELEMENT_SPECS: Spec[] = [
      { path: "value", type: "text", values: get(["value"]) },
      { path: "type", type: "text", values: get(["type"]) },
      { path: "primary", type: "boolean", values: get(["primary"]) },
    ];
    const TEXT_OPS = ["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le", "pr"];

    function random(seed: number) {
      let state = seed >>> 0;
      const next = () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const word = (length: number) => Array.from({ length }, () => pick([..."abcAB"])).join("");
      const mixCase = (text: string) =>
        [...text].map((c) => (next() < 0.3 ? c.toUpperCase() : next() < 0.3 ? c.toLowerCase() : c)).join("");
      return { next, pick, word, mixCase };
    }
    type Random = ReturnType<typeof random>;

    function evaluate(node: Node, resource: Record<string, unknown>): boolean {
      switch (node.kind) {
        case "and":
          return evaluate(node.left, resource) && evaluate(node.right, resource);
        case "or":
          return evaluate(node.left, resource) || evaluate(node.right, resource);
        case "not":
          return !evaluate(node.node, resource);
        case "emails":
          return emails(resource).some((email) => evaluate(node.node, email));
        default:
          return leafMatches(node, resource);
      }
    }

    function leafMatches(node: Extract<Node, { kind: "leaf" }>, resource: Record<string, unknown>): boolean {
      const values = node.spec.values(resource);
      const present = node.spec.present?.(resource) ?? values.some((value) => value !== "");
      if (node.op === "pr" || (node.value === null && node.op === "ne")) return present;
      if (node.value === null) return !present;
      const test = (value: unknown): boolean => {
        if (node.spec.type === "boolean") return value === node.value;
        if (node.spec.type === "date") {
          const [a, b] = [Date.parse(String(value)), Date.parse(String(node.value))];
          return { eq: a === b, ne: a === b, gt: a > b, ge: a >= b, lt: a < b, le: a <= b }[node.op] as boolean;
        }
        const fold = (text: string) => (node.spec.caseExact ? text : text.toLowerCase());
        const [a, b] = [fold(String(value)), fold(String(node.value))];
        return {
          eq: a === b,
          ne: a === b,
          co: a.includes(b),
          sw: a.startsWith(b),
          ew: a.endsWith(b),
          gt: a > b,
          ge: a >= b,
          lt: a < b,
          le: a <= b,
        }[node.op] as boolean;
      };
      return node.op === "ne" ? !values.some(test) : values.some(test);
    }

    function text(node: Node, r: Random): string {
      const keyword = (word: string) => (r.next() < 0.5 ? word.toUpperCase() : word);
      switch (node.kind) {
        case "and":
        case "or":
          return `(${text(node.left, r)}) ${keyword(node.kind)} (${text(node.right, r)})`;
        case "not":
          return `${keyword("not")} (${text(node.node, r)})`;
        case "emails":
          return `${r.mixCase("emails")}[${text(node.node, r)}]`;
        default: {
          // Attribute names are case-insensitive, URN prefix included.
          const path = r.mixCase(node.spec.path);
          if (node.op === "pr") return `${path} ${keyword("pr")}`;
          return `${path} ${keyword(node.op)} ${typeof node.value === "string" ? JSON.stringify(node.value) : String(node.value)}`;
        }
      }
    }

    function leaf(r: Random, specs: Spec[], resources: Array<Record<string, unknown>>): Node {
      const spec = r.pick(specs);
      const pool = resources.flatMap((resource) => spec.values(resource));
      if (spec.type === "boolean")
        return { kind: "leaf", spec, op: r.pick(["eq", "ne", "pr"]), value: r.next() < 0.1 ? null : r.next() < 0.5 };
      if (spec.type === "date") {
        const base = Date.parse(String(r.pick(pool)));
        const value = new Date(base + r.pick([-1, 0, 0, 1])).toISOString();
        return { kind: "leaf", spec, op: r.pick(["eq", "ne", "gt", "ge", "lt", "le", "pr"]), value };
      }
      const op = r.pick(TEXT_OPS);
      const source = pool.length > 0 && r.next() < 0.8 ? String(r.pick(pool)) : r.word(2);
      const cut = Math.floor(r.next() * source.length);
      const fragment =
        op === "co"
          ? source.slice(cut, cut + 2)
          : op === "sw"
            ? source.slice(0, cut + 1)
            : op === "ew"
              ? source.slice(cut)
              : source;
      return {
        kind: "leaf",
        spec,
        op,
        value: (op === "eq" || op === "ne") && r.next() < 0.1 ? null : r.mixCase(fragment),
      };
    }

    function tree(r: Random, depth: number, resources: Array<Record<string, unknown>>, specs = SPECS): Node {
      const choice = depth === 0 ? 4 : Math.floor(r.next() * 6);
      if (choice === 0)
        return { kind: "and", left: tree(r, depth - 1, resources, specs), right: tree(r, depth - 1, resources, specs) };
      if (choice === 1)
        return { kind: "or", left: tree(r, depth - 1, resources, specs), right: tree(r, depth - 1, resources, specs) };
      if (choice === 2) return { kind: "not", node: tree(r, depth - 1, resources, specs) };
      if (choice === 3 && specs === SPECS) {
        const elements = resources.flatMap((resource) => emails(resource));
        return { kind: "emails", node: tree(r, depth - 1, elements, ELEMENT_SPECS) };
      }
      return leaf(r, specs, resources);
    }

    it("random filters over random users return exactly the users an in-memory evaluation selects", async () => {
      const { api } = instance.faultline;
      await api.organizations.create({ slug: "prop", plan: "business", samlConfigured: true });
      const owner = await api.users.create({ username: "prop-owner", email: "Owner@Prop.test", name: "Pat Owner" });
      await api.members.add({ organization: "prop", user: owner.id, role: "owner" });
      const token = (await api.scim.enable("prop")).token;
      const call = (query: string) =>
        fetch(`${server.url}/api/0/organizations/prop/scim/v2/Users?${query}`, { headers: bearer(token) });
      const r = random(20260301);
      const optional = <T>(make: () => T): T | undefined => (r.next() < 0.6 ? make() : undefined);
      for (let i = 0; i < 30; i++) {
        const body = {
          schemas: [USER, ENTERPRISE],
          userName: `${r.word(3)}${i}@${r.pick(["x.test", "y.test", "X.test"])}`,
          externalId: optional(() => `E${r.word(2)}${i}`),
          displayName: optional(() => r.word(4)),
          title: optional(() => r.pick(["", r.word(3)])),
          name: optional(() => ({ givenName: optional(() => r.word(3)), familyName: optional(() => r.word(4)) })),
          // Emails are unique per person: provisioning links the user account that has the email.
          emails: Array.from({ length: Math.floor(r.next() * 4) }, (_, k) => ({
            value: `${r.word(2)}${i}.${k}@${r.pick(["x.test", "work.test"])}`,
            type: r.pick(["work", "home", "Other"]),
            primary: optional(() => r.next() < 0.5),
          })),
          active: r.next() < 0.7,
          [ENTERPRISE]: optional(() => ({ department: r.word(2) })),
        };
        const response = await fetch(`${server.url}/api/0/organizations/prop/scim/v2/Users`, {
          method: "POST",
          headers: { ...bearer(token), "Content-Type": "application/scim+json" },
          body: JSON.stringify(body),
        });
        expect(response.status, await response.clone().text()).toBe(201);
      }
      const resources: Resource[] = (await (await call("count=100")).json()).Resources;
      expect(resources).toHaveLength(31);

      for (let round = 0; round < 250; round++) {
        const node = tree(r, Math.floor(r.next() * 4), resources);
        const filter = text(node, r);
        const response = await call(`count=100&attributes=id&filter=${encodeURIComponent(filter)}`);
        expect(response.status, `${filter}: ${await response.clone().text()}`).toBe(200);
        const actual = (await response.json()).Resources.map((resource: Resource) => resource.id);
        const expected = resources.filter((resource) => evaluate(node, resource)).map((resource) => resource.id);
        expect(actual, filter).toEqual(expected);
      }
    });
  });

  describe("gating and tokens", () => {
    it("403 SCIM errors naming what is missing: plan, SAML, SCIM enabled", async () => {
      const { api } = instance.faultline;
      await api.organizations.create({ slug: "free-org", plan: "free", samlConfigured: true });
      await api.organizations.create({ slug: "no-saml", plan: "enterprise" });
      await api.organizations.create({ slug: "not-enabled", plan: "business", samlConfigured: true });
      const token = async (slug: string) =>
        (await api.tokens.create({ organization: slug, scopes: ["member:admin", "team:admin"] })).token;
      const call = async (slug: string) =>
        fetch(`${server.url}/api/0/organizations/${slug}/scim/v2/Users`, { headers: bearer(await token(slug)) });
      expect((await expectScimError(await call("free-org"), 403)).detail).toMatch(
        /business or enterprise plan \(it is on "free"\)/,
      );
      expect((await expectScimError(await call("no-saml"), 403)).detail).toMatch(/a configured SAML identity provider/);
      expect((await expectScimError(await call("not-enabled"), 403)).detail).toMatch(/SCIM to be enabled/);
      await expect(api.scim.enable("free-org")).rejects.toThrow(
        /needs the business or enterprise plan \(it is on "free"\)/,
      );
      await expect(api.scim.enable("no-saml")).rejects.toThrow(/needs a configured SAML identity provider/);
      await api.organizations.update("free-org", { plan: "team", samlConfigured: false });
      await expect(api.scim.enable("free-org")).rejects.toThrow(
        /business or enterprise plan \(it is on "team"\) and a configured SAML identity provider/,
      );
      await expect(api.scim.rotateToken("not-enabled")).rejects.toThrow(/SCIM is not enabled/);
    });

    it("a SCIM token of another organization → 404, never its data; no or unknown token → 401", async () => {
      const { api } = instance.faultline;
      await api.organizations.create({ slug: "globex", plan: "enterprise", samlConfigured: true });
      const globexToken = (await api.scim.enable("globex")).token;
      expect(globexToken).toMatch(/^fls_[A-Za-z0-9]{40}$/);
      await expectScimError(await scim("/Users", { token: globexToken }), 404);
      await expectScimError(await scim(`/Users/${ownerMemberId}`, { token: globexToken }), 404);
      await expectScimError(await scim(`/Users/${ownerMemberId}`, { token: globexToken, method: "DELETE" }), 404);
      const own = await (
        await fetch(`${server.url}/api/0/organizations/globex/scim/v2/Users`, { headers: bearer(globexToken) })
      ).json();
      expect(own.totalResults).toBe(0);
      await expectScimError(await fetch(`${server.url}/api/0/organizations/acme/scim/v2/Users`), 401);
      const unknown = await scim("/Users", { token: "fls_0000000000000000000000000000000000000000" });
      await expectScimError(unknown, 401);
    });

    it("rotating the token revokes the old one; user tokens with the member scopes work, without them → 403", async () => {
      const { api } = instance.faultline;
      await api.organizations.create({ slug: "rotor", plan: "business", samlConfigured: true });
      const first = (await api.scim.enable("rotor")).token;
      const second = await api.scim.rotateToken("rotor");
      expect(second).toMatchObject({
        token: expect.stringMatching(/^fls_/),
        scopes: ["member:admin", "team:admin"],
        path: "/api/0/organizations/rotor/scim/v2",
      });
      const users = (token: string) =>
        fetch(`${server.url}/api/0/organizations/rotor/scim/v2/Users`, { headers: bearer(token) });
      await expectScimError(await users(first), 401);
      expect((await users(second.token)).status).toBe(200);
      expect((await scim("/Users", { token: ownerToken })).status).toBe(200);
      const ada = await api.users.get("ada");
      const readOnly = (await api.tokens.create({ user: ada?.id as string, scopes: ["member:read"] })).token;
      expect((await scim("/Users", { token: readOnly })).status).toBe(200);
      await expectScimError(
        await scim("/Users", {
          token: readOnly,
          method: "POST",
          body: { schemas: [USER], userName: "nope@acme.test" },
        }),
        403,
      );
      await api.scim.disable("rotor");
      await expectScimError(await users(second.token), 401);
    });
  });

  describe("media types and errors", () => {
    it("accepts application/json, application/json+scim and charset parameters; answers JSON when asked", async () => {
      for (const type of [
        "application/json",
        "application/json; charset=utf-8",
        "application/json+scim",
        "application/scim+json; charset=UTF-8",
      ]) {
        const response = await scim("/Users", {
          method: "POST",
          headers: { "Content-Type": type },
          body: { schemas: [USER], userName: `type-${type.length}@acme.test` },
        });
        expect(response.status, type).toBe(201);
      }
      const json = await scim("/Users?count=1", { headers: { Accept: "application/json" } });
      expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const either = await scim("/Users?count=1", { headers: { Accept: "application/scim+json, application/json" } });
      expect(either.headers.get("content-type")).toBe("application/scim+json; charset=utf-8");
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          headers: { "Content-Type": "text/plain" },
          body: { schemas: [USER], userName: "t@acme.test" },
        }),
        415,
      );
    });

    it("bad input → SCIM errors with the right scimType, never a 500", async () => {
      await expectScimError(await scim("/Users", { method: "POST", body: '{"schemas": [' }), 400, "invalidSyntax");
      await expectScimError(await scim("/Users", { method: "POST", body: "[1, 2]" }), 400, "invalidSyntax");
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: "nope", userName: "s@acme.test" } }),
        400,
        "invalidSyntax",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], userName: "s@acme.test" },
        }),
        400,
        "invalidSyntax",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER, "urn:example:custom"], userName: "s@acme.test" },
        }),
        400,
        "invalidSyntax",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER], userName: "s@acme.test", favouriteColour: "red" },
        }),
        400,
        "invalidSyntax",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER], userName: "s@acme.test", name: { nickname: "x" } },
        }),
        400,
        "invalidSyntax",
      );
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], userName: 42 } }),
        400,
        "invalidValue",
      );
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], userName: "s@acme.test", active: "yes" } }),
        400,
        "invalidValue",
      );
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER], userName: "s@acme.test", emails: ["s@acme.test"] },
        }),
        400,
        "invalidValue",
      );
      await expectScimError(
        await scim("/Users", { method: "POST", body: { schemas: [USER], userName: "s@acme.test", name: "S" } }),
        400,
        "invalidValue",
      );
      const target = await provision("bad.patch@acme.test");
      await expectScimError(
        await patch(target.id, { op: "replace", path: "favouriteColour", value: "red" }),
        400,
        "invalidPath",
      );
      await expectScimError(
        await patch(target.id, { op: "replace", path: "emails[type eq", value: "x" }),
        400,
        "invalidPath",
      );
      await expectScimError(await patch(target.id, { op: "replace", path: "id", value: "1" }), 400, "mutability");
      await expectScimError(
        await patch(target.id, { op: "add", path: "groups", value: [{ value: "1" }] }),
        400,
        "mutability",
      );
      await expectScimError(await patch(target.id, { op: "remove" }), 400, "noTarget");
      await expectScimError(await patch(target.id, { op: "replace", path: "active", value: 3 }), 400, "invalidValue");
      await expectScimError(
        await scim(`/Users/${target.id}`, { method: "PATCH", body: { Operations: [] } }),
        400,
        "invalidSyntax",
      );
      await expectScimError(await scim(`/Users/${target.id}`, { method: "PATCH", body: "{" }), 400, "invalidSyntax");
    });

    it("PATCH is atomic: a failing operation leaves everything as it was", async () => {
      const target = await provision("atomic@acme.test", { title: "Before" });
      await expectScimError(
        await patch(
          target.id,
          { op: "replace", path: "title", value: "After" },
          { op: "replace", path: "nope", value: 1 },
        ),
        400,
        "invalidPath",
      );
      await expectScimError(
        await patch(
          target.id,
          { op: "replace", path: "title", value: "After" },
          { op: "replace", path: "userName", value: "grace.hopper@ACME.test" },
        ),
        409,
        "uniqueness",
      );
      expect((await (await scim(`/Users/${target.id}`)).json()).title).toBe("Before");
      const tooMany = Array.from({ length: 101 }, () => ({ op: "replace", path: "title", value: "x" }));
      await expectScimError(await patch(target.id, ...tooMany), 400, "tooMany");
    });

    it("401, 404, 405 and 413 on SCIM paths are SCIM errors", async () => {
      const unauthenticated = await fetch(`${server.url}/api/0/organizations/acme/scim/v2/Users`);
      await expectScimError(unauthenticated, 401);
      await expectScimError(await scim("/Unknown"), 404);
      await expectScimError(await scim("/Users/1/extra"), 404);
      const notAllowed = await scim("/Users", { method: "DELETE" });
      expect(notAllowed.headers.get("allow")).toBe("GET, HEAD, POST");
      await expectScimError(notAllowed, 405);
      await expectScimError(
        await scim("/Users", {
          method: "POST",
          body: { schemas: [USER], userName: "big@acme.test", title: "x".repeat(70 * 1024) },
        }),
        413,
      );
      // Other paths keep the Sentry error shape.
      expect(
        await (
          await fetch(`${server.url}/api/0/organizations/acme/nothing-here/`, { headers: bearer(ownerToken) })
        ).json(),
      ).toEqual({ detail: "The requested resource does not exist" });
    });
  });
});
