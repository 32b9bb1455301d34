import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/** What real identity providers send, request by request (scim.md §2 and §6). */
describe("SCIM as Okta and Microsoft Entra ID use it", () => {
  let instance: TestInstance;
  let server: RunningServer;
  let token: string;

  beforeAll(async () => {
    instance = await createTestInstance({ worker: false });
    const { api } = instance.faultline;
    await api.organizations.create({ slug: "acme", plan: "business", samlConfigured: true });
    const owner = await api.users.create({ username: "owner", email: "owner@acme.test", name: "Olive Owner" });
    await api.members.add({ organization: "acme", user: owner.id, role: "owner" });
    token = (await api.scim.enable("acme")).token;
    server = await serveFaultline(instance.faultline);
  });
  afterAll(async () => {
    await server?.close();
    await instance?.close();
  });

  /** Okta and Entra send `application/scim+json` unless a test says otherwise. */
  const scim = (path: string, init: { method?: string; body?: unknown; contentType?: string } = {}) =>
    fetch(`${server.url}/api/0/organizations/acme/scim/v2${path}`, {
      method: init.method ?? "GET",
      headers: {
        ...bearer(token),
        Accept: "application/scim+json",
        "Content-Type": init.contentType ?? "application/scim+json; charset=utf-8",
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const patchUser = (id: string, Operations: unknown[], contentType?: string) =>
    scim(`/Users/${id}`, { method: "PATCH", body: { schemas: [PATCH_OP], Operations }, contentType });
  const patchGroup = (id: string, Operations: unknown[]) =>
    scim(`/Groups/${id}`, { method: "PATCH", body: { schemas: [PATCH_OP], Operations } });
  const entraUser = async (suffix: string, extra: Record<string, unknown> = {}) => {
    // Entra's validator body, meta and all.
    const response = await scim("/Users", {
      method: "POST",
      body: {
        schemas: [USER, ENTERPRISE],
        externalId: randomUUID(),
        userName: `Test_User_${suffix}@testuser.com`,
        active: true,
        emails: [{ primary: true, type: "work", value: `Test_User_${suffix}@testuser.com` }],
        meta: { resourceType: "User" },
        name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
        roles: [],
        ...extra,
      },
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return response.json();
  };
  const entraGroup = async (displayName: string, memberIds: string[] = []) => {
    const response = await scim("/Groups", {
      method: "POST",
      body: { schemas: [GROUP], externalId: randomUUID(), displayName, members: memberIds.map((value) => ({ value })) },
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return response.json();
  };
  const getUser = async (id: string) => (await scim(`/Users/${id}`)).json();
  const memberIds = (group: { members: Array<{ value: string }> }) => group.members.map((m) => m.value).sort();

  describe("the Okta SCIM 2.0 SPEC test sequence", () => {
    const given = "Okta";
    const family = `Spec${Date.now()}`;
    const userName = `okta.spec.${Date.now()}@example.com`;
    let firstUser: Record<string, unknown>;
    let createdId: string;

    it("1. GET /Users?count=1&startIndex=1: numeric paging fields, a first user with id, name, userName, active, emails", async () => {
      const response = await scim("/Users?count=1&startIndex=1");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/scim\+json/);
      const body = await response.json();
      expect(body.schemas).toEqual([LIST]);
      expect(typeof body.totalResults).toBe("number");
      expect(body.startIndex).toBe(1);
      expect(body.itemsPerPage).toBe(1);
      firstUser = body.Resources[0];
      expect(firstUser).toMatchObject({
        id: expect.any(String),
        name: { givenName: "Olive", familyName: "Owner" },
        userName: "owner@acme.test",
        active: true,
        emails: [{ value: "owner@acme.test", primary: true, type: "work" }],
      });
    });

    it("2. GET /Users/{id} of that user", async () => {
      const response = await scim(`/Users/${firstUser.id}`);
      expect(response.status).toBe(200);
      expect((await response.json()).id).toBe(firstUser.id);
    });

    it("3. a filter on an unknown userName → 200 with 0 results", async () => {
      const response = await scim(
        `/Users?filter=${encodeURIComponent(`userName eq "${randomUUID()}@example.com"`)}&startIndex=1&count=100`,
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        schemas: [LIST],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: [],
      });
    });

    it("4. an unknown id → 404 SCIM error", async () => {
      const response = await scim(`/Users/${randomUUID()}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ schemas: [ERROR], status: "404", detail: expect.any(String) });
    });

    it("5. create with realistic values → 201, reported active", async () => {
      const response = await scim("/Users", {
        method: "POST",
        body: {
          schemas: [USER],
          userName,
          name: { givenName: given, familyName: family },
          emails: [{ primary: true, value: userName, type: "work" }],
          displayName: `${given} ${family}`,
          locale: "en-US",
          externalId: "00ujl29u0le5T6Aj10h7",
          groups: [],
          password: "1mz050nq",
          active: true,
        },
      });
      expect(response.status).toBe(201);
      const body = await response.json();
      expect(body).toMatchObject({
        id: expect.any(String),
        userName,
        active: true,
        name: { givenName: given, familyName: family },
      });
      expect(body).not.toHaveProperty("password");
      createdId = body.id;
    });

    it("6. verify: GET returns what was sent", async () => {
      expect(await getUser(createdId)).toMatchObject({
        id: createdId,
        userName,
        name: { givenName: given, familyName: family },
        emails: [{ primary: true, value: userName, type: "work" }],
        displayName: `${given} ${family}`,
        locale: "en-US",
        externalId: "00ujl29u0le5T6Aj10h7",
        active: true,
      });
    });

    it("7. the same user again → 409 uniqueness", async () => {
      const response = await scim("/Users", {
        method: "POST",
        body: { schemas: [USER], userName, name: { givenName: given, familyName: family }, active: true },
      });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
    });

    it("8. the userName filter upper-cased finds the user", async () => {
      const response = await scim(
        `/Users?filter=${encodeURIComponent(`userName eq "${userName.toUpperCase()}"`)}&startIndex=1&count=100`,
      );
      const body = await response.json();
      expect(body.totalResults).toBe(1);
      expect(body.Resources[0].id).toBe(createdId);
    });

    it("9. /Groups answers", async () => {
      const response = await scim("/Groups?startIndex=1&count=100");
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ schemas: [LIST], totalResults: expect.any(Number), startIndex: 1 });
    });
  });

  describe("Okta lifecycle", () => {
    it("profile updates by PUT (custom SAML apps) and deactivation by path-less replace", async () => {
      const user = await entraUser("okta-put");
      const put = await scim(`/Users/${user.id}`, {
        method: "PUT",
        body: {
          schemas: [USER],
          id: user.id,
          userName: user.userName,
          name: { givenName: "New", familyName: "Name" },
          emails: user.emails,
          active: true,
          groups: [],
        },
      });
      expect(await put.json()).toMatchObject({ name: { givenName: "New", familyName: "Name" }, active: true });
      const deactivate = await patchUser(user.id, [{ op: "replace", value: { active: false } }]);
      expect((await deactivate.json()).active).toBe(false);
    });

    it("group push: create, add and remove members, rename restating the id", async () => {
      const a = await entraUser("okta-a");
      const b = await entraUser("okta-b");
      const group = await entraGroup("Okta Pushed");
      expect(
        memberIds(
          await (
            await patchGroup(group.id, [
              {
                op: "add",
                path: "members",
                value: [
                  { value: a.id, display: a.userName },
                  { value: b.id, display: b.userName },
                ],
              },
            ])
          ).json(),
        ),
      ).toEqual([a.id, b.id].sort());
      expect(
        memberIds(await (await patchGroup(group.id, [{ op: "remove", path: `members[value eq "${a.id}"]` }])).json()),
      ).toEqual([b.id]);
      const renamed = await patchGroup(group.id, [
        { op: "replace", value: { id: group.id, displayName: "Okta Renamed" } },
      ]);
      expect(renamed.status).toBe(200);
      expect((await renamed.json()).displayName).toBe("Okta Renamed");
    });
  });

  describe("Entra ID: every quirk of scim.md §6, one by one", () => {
    it('"Replace" and "Add" with a capital letter', async () => {
      const user = await entraUser("op-case");
      const response = await patchUser(user.id, [
        { op: "Replace", path: "displayName", value: "Replaced" },
        { op: "Add", path: "title", value: "Added" },
      ]);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ displayName: "Replaced", title: "Added" });
    });

    it('"False" / "True" strings for booleans (old Entra)', async () => {
      const user = await entraUser("bool-strings");
      expect(
        (await (await patchUser(user.id, [{ op: "Replace", path: "active", value: "False" }])).json()).active,
      ).toBe(false);
      expect((await getUser(user.id)).active).toBe(false);
      expect((await (await patchUser(user.id, [{ op: "Replace", path: "active", value: "True" }])).json()).active).toBe(
        true,
      );
    });

    it("path-less replace with {active: false} (new Entra)", async () => {
      const user = await entraUser("pathless-active");
      const response = await patchUser(user.id, [{ op: "replace", value: { active: false } }]);
      expect((await response.json()).active).toBe(false);
    });

    it("add with path active", async () => {
      const user = await entraUser("add-active");
      expect((await (await patchUser(user.id, [{ op: "Add", path: "active", value: "False" }])).json()).active).toBe(
        false,
      );
    });

    it("dotted keys in a path-less value", async () => {
      const user = await entraUser("dotted");
      const response = await patchUser(user.id, [
        { op: "replace", value: { "name.givenName": "Pat", "name.familyName": "Doe", displayName: "Pat Doe" } },
      ]);
      expect(await response.json()).toMatchObject({
        name: { givenName: "Pat", familyName: "Doe", formatted: "givenName familyName" },
        displayName: "Pat Doe",
      });
    });

    it("URN-qualified keys in a path-less value, and the manager as a bare id", async () => {
      const manager = await entraUser("manager");
      const user = await entraUser("urn-keys");
      const response = await patchUser(user.id, [
        { op: "add", value: { [`${ENTERPRISE}:employeeNumber`]: "1234", [`${ENTERPRISE}:department`]: "Finance" } },
        { op: "Add", path: `${ENTERPRISE}:manager`, value: manager.id },
      ]);
      const body = await response.json();
      expect(body.schemas).toEqual([USER, ENTERPRISE]);
      expect(body[ENTERPRISE]).toEqual({
        employeeNumber: "1234",
        department: "Finance",
        manager: { value: manager.id },
      });
      const removed = await patchUser(user.id, [{ op: "Remove", path: `${ENTERPRISE}:manager` }]);
      expect((await removed.json())[ENTERPRISE]).toEqual({ employeeNumber: "1234", department: "Finance" });
    });

    it('value-path filters in path: emails[type eq "work"].value', async () => {
      const user = await entraUser("value-path");
      let response = await patchUser(user.id, [
        { op: "Add", path: 'emails[type eq "work"].value', value: "updated@testuser.com" },
      ]);
      expect((await response.json()).emails).toEqual([{ primary: true, type: "work", value: "updated@testuser.com" }]);
      response = await patchUser(user.id, [
        { op: "replace", value: { 'emails[type eq "home"].value': "home@testuser.com" } },
      ]);
      expect((await response.json()).emails).toEqual([
        { primary: true, type: "work", value: "updated@testuser.com" },
        { type: "home", value: "home@testuser.com" },
      ]);
      const found = await (
        await scim(`/Users?filter=${encodeURIComponent('emails[type eq "home"].value eq "HOME@testuser.com"')}`)
      ).json();
      expect(found.Resources.map((r: { id: string }) => r.id)).toEqual([user.id]);
    });

    it("member removal, old dialect: {op: Remove, path: members, value: [{value}]}", async () => {
      const a = await entraUser("old-a");
      const b = await entraUser("old-b");
      const group = await entraGroup("Old Dialect", [a.id, b.id]);
      const response = await patchGroup(group.id, [
        { op: "Remove", path: "members", value: [{ $ref: null, value: a.id }] },
      ]);
      expect(response.status).toBe(200);
      expect(memberIds(await response.json())).toEqual([b.id]);
    });

    it('member removal, new dialect: {op: remove, path: members[value eq "id"]}', async () => {
      const a = await entraUser("new-a");
      const b = await entraUser("new-b");
      const group = await entraGroup("New Dialect", [a.id, b.id]);
      const response = await patchGroup(group.id, [{ op: "remove", path: `members[value eq "${b.id}"]` }]);
      expect(memberIds(await response.json())).toEqual([a.id]);
    });

    it("members added with $ref null, replaced, and a rename by path", async () => {
      const a = await entraUser("grp-a");
      const b = await entraUser("grp-b");
      const group = await entraGroup("Entra Group");
      expect(
        memberIds(
          await (
            await patchGroup(group.id, [{ op: "Add", path: "members", value: [{ $ref: null, value: a.id }] }])
          ).json(),
        ),
      ).toEqual([a.id]);
      expect(
        memberIds(
          await (await patchGroup(group.id, [{ op: "replace", path: "members", value: [{ value: b.id }] }])).json(),
        ),
      ).toEqual([b.id]);
      const renamed = await patchGroup(group.id, [
        { op: "Replace", path: "displayName", value: "Entra Group updatedDisplayName" },
      ]);
      expect((await renamed.json()).displayName).toBe("Entra Group updatedDisplayName");
      const lookup = await (
        await scim(
          `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "entra group updateddisplayname"')}`,
        )
      ).json();
      expect(lookup.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
      expect(lookup.Resources[0].id).toBe(group.id);
    });

    it("an application/json body", async () => {
      const user = await entraUser("plain-json");
      const response = await patchUser(user.id, [{ op: "replace", path: "title", value: "JSON" }], "application/json");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/scim\+json/);
      expect((await response.json()).title).toBe("JSON");
    });

    it("an application/json+scim body (Sentry's media type)", async () => {
      const user = await entraUser("json-scim");
      const response = await patchUser(
        user.id,
        [{ op: "replace", path: "title", value: "JSON+SCIM" }],
        "application/json+scim",
      );
      expect(response.status).toBe(200);
      expect((await response.json()).title).toBe("JSON+SCIM");
    });
  });

  describe("discovery", () => {
    it("ServiceProviderConfig: patch and filter supported (maxResults 100), bulk/sort/etag/changePassword not, bearer tokens", async () => {
      const body = await (await scim("/ServiceProviderConfig")).json();
      expect(body).toMatchObject({
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
        patch: { supported: true },
        filter: { supported: true, maxResults: 100 },
        bulk: { supported: false },
        sort: { supported: false },
        etag: { supported: false },
        changePassword: { supported: false },
        authenticationSchemes: [expect.objectContaining({ type: "oauthbearertoken", primary: true })],
      });
    });

    it("ResourceTypes and Schemas, listed and one by one; unknown ones → 404; other methods → 405", async () => {
      const types = await (await scim("/ResourceTypes")).json();
      expect(types).toMatchObject({ schemas: [LIST], totalResults: 2 });
      expect(types.Resources.map((t: { id: string; endpoint: string }) => [t.id, t.endpoint])).toEqual([
        ["User", "/Users"],
        ["Group", "/Groups"],
      ]);
      expect(await (await scim("/ResourceTypes/User")).json()).toMatchObject({
        schema: USER,
        schemaExtensions: [{ schema: ENTERPRISE, required: false }],
      });
      const schemas = await (await scim("/Schemas")).json();
      expect(schemas.Resources.map((s: { id: string }) => s.id)).toEqual([USER, GROUP, ENTERPRISE]);
      const user = await (await scim(`/Schemas/${USER}`)).json();
      const userName = user.attributes.find((a: { name: string }) => a.name === "userName");
      expect(userName).toMatchObject({
        type: "string",
        required: true,
        caseExact: false,
        uniqueness: "server",
        mutability: "readWrite",
      });
      const emails = user.attributes.find((a: { name: string }) => a.name === "emails");
      expect(emails.subAttributes.map((a: { name: string }) => a.name)).toEqual([
        "value",
        "display",
        "type",
        "primary",
      ]);
      expect((await scim(`/Schemas/${ENTERPRISE}`)).status).toBe(200);
      for (const path of ["/Schemas/urn:nope", "/ResourceTypes/Widget"]) {
        const response = await scim(path);
        expect(response.status).toBe(404);
        expect((await response.json()).schemas).toEqual([ERROR]);
      }
      for (const path of ["/ServiceProviderConfig", "/Schemas", "/ResourceTypes", `/Schemas/${USER}`]) {
        const response = await scim(path, { method: "POST", body: {} });
        expect(response.status, path).toBe(405);
        expect(response.headers.get("allow")).toBe("GET, HEAD");
        expect(await response.json()).toMatchObject({ schemas: [ERROR], status: "405" });
      }
    });
  });
});
