import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.js";
import { applyPatch } from "../../src/plugins/scim/resources/patch.js";
import { canonicalResource } from "../../src/plugins/scim/resources/input.js";
import { GROUP_RESOURCE, USER_RESOURCE } from "../../src/plugins/scim/resources/schema-definitions.js";

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });

const user = () => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName: "ada@example.com",
  active: true,
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [{ value: "ada@example.com", type: "work", primary: true }],
});
const group = () => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  displayName: "Platform",
  members: [
    { value: "1", display: "Ada" },
    { value: "2", display: "Bob" },
  ],
});

const patchUser = (...operations: unknown[]) =>
  canonicalResource(USER_RESOURCE, applyPatch(USER_RESOURCE, user(), patch(...operations)));
const patchGroup = (...operations: unknown[]) => applyPatch(GROUP_RESOURCE, group(), patch(...operations));

/** The SCIM error a call throws: status and scimType. */
function failure(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError)
      return { status: error.status, scimType: error.extra.scimType, detail: error.detail };
    throw error;
  }
  throw new Error("expected a SCIM error");
}

describe("PATCH normalisation (scim.md §6) and application", () => {
  it("accepts op in any letter case", () => {
    expect(
      patchUser(
        { op: "Replace", path: "displayName", value: "A" },
        { op: "ADD", path: "title", value: "Countess" },
        { op: "Remove", path: "name.familyName" },
      ),
    ).toMatchObject({
      displayName: "A",
      title: "Countess",
      name: { givenName: "Ada" },
    });
    expect(patchUser({ op: "Remove", path: "name.familyName" }).name).toEqual({ givenName: "Ada" });
  });

  it('reads "True" / "False" / "true" as booleans, at a path and inside values', () => {
    expect(patchUser({ op: "Replace", path: "active", value: "False" }).active).toBe(false);
    expect(patchUser({ op: "replace", path: "active", value: "true" }).active).toBe(true);
    expect(patchUser({ op: "replace", value: { active: "False" } }).active).toBe(false);
    expect(patchUser({ op: "replace", path: 'emails[type eq "work"].primary', value: "False" }).emails).toEqual([
      { value: "ada@example.com", type: "work", primary: false },
    ]);
  });

  it("deactivates in every shape: path-less replace, replace with a path, add with a path", () => {
    expect(patchUser({ op: "replace", value: { active: false } }).active).toBe(false);
    expect(patchUser({ op: "Replace", path: "active", value: "False" }).active).toBe(false);
    expect(patchUser({ op: "Add", path: "active", value: false }).active).toBe(false);
  });

  it("places dotted and URN-qualified keys of a path-less value, and whole extension objects", () => {
    const patched = patchUser({
      op: "replace",
      value: {
        "name.givenName": "Augusta",
        "NAME.familyName": "King",
        [`${ENTERPRISE}:employeeNumber`]: "1815",
        [`${ENTERPRISE}:manager`]: "42",
        [ENTERPRISE]: { department: "Engines" },
      },
    });
    expect(patched.name).toEqual({ givenName: "Augusta", familyName: "King" });
    expect(patched[ENTERPRISE]).toEqual({ employeeNumber: "1815", manager: { value: "42" }, department: "Engines" });
  });

  it("resolves attribute names in any letter case and writes them canonically", () => {
    expect(
      patchUser(
        { op: "replace", path: "DisplayName", value: "A" },
        { op: "replace", path: "Name.GivenName", value: "Ad" },
      ),
    ).toMatchObject({ displayName: "A", name: { givenName: "Ad" } });
  });

  it("applies value-path filters: replace a matching element's sub-attribute, add one when none matches", () => {
    expect(patchUser({ op: "replace", path: 'emails[type eq "work"].value', value: "a@new.example" }).emails).toEqual([
      { value: "a@new.example", type: "work", primary: true },
    ]);
    expect(patchUser({ op: "add", path: 'emails[type eq "home"].value', value: "a@home.example" }).emails).toEqual([
      { value: "ada@example.com", type: "work", primary: true },
      { value: "a@home.example", type: "home" },
    ]);
    expect(patchUser({ op: "remove", path: 'emails[type eq "work"]' }).emails).toBeUndefined();
  });

  it("removes group members in both Entra dialects, and from an empty list without failing", () => {
    expect(patchGroup({ op: "remove", path: 'members[value eq "1"]' }).members).toEqual([
      { value: "2", display: "Bob" },
    ]);
    expect(
      patchGroup({ op: "Remove", path: "members", value: [{ value: "1" }, { value: "2" }] }).members,
    ).toBeUndefined();
    expect(
      patchGroup(
        { op: "Remove", path: "members", value: [{ value: "1" }, { value: "2" }] },
        { op: "remove", path: 'members[value eq "2"]' },
      ).members,
    ).toBeUndefined();
  });

  it("adds and replaces group members and renames, with or without a path", () => {
    expect(patchGroup({ op: "add", path: "members", value: [{ value: "3" }] }).members).toEqual([
      { value: "1", display: "Ada" },
      { value: "2", display: "Bob" },
      { value: "3" },
    ]);
    expect(patchGroup({ op: "add", path: "members", value: { value: "3" } }).members).toHaveLength(3);
    expect(patchGroup({ op: "replace", path: "members", value: [{ value: "9" }] }).members).toEqual([{ value: "9" }]);
    expect(patchGroup({ op: "replace", value: { displayName: "Infra" } }).displayName).toBe("Infra");
    expect(patchGroup({ op: "Replace", path: "displayName", value: "Infra" }).displayName).toBe("Infra");
  });

  it("treats replace with null as removal", () => {
    expect(patchUser({ op: "replace", path: "name.familyName", value: null }).name).toEqual({ givenName: "Ada" });
  });

  it("does not touch the resource it was given", () => {
    const original = user();
    applyPatch(USER_RESOURCE, original, patch({ op: "replace", path: "name.givenName", value: "X" }));
    expect(original).toEqual(user());
  });
});

describe("PATCH errors", () => {
  it("more than 100 operations → tooMany", () => {
    const operations = Array.from({ length: 101 }, () => ({ op: "replace", path: "title", value: "x" }));
    expect(failure(() => patchUser(...operations))).toMatchObject({ status: 400, scimType: "tooMany" });
    expect(() => patchUser(...operations.slice(0, 100))).not.toThrow();
  });

  it("a body that is not a PatchOp → invalidSyntax", () => {
    expect(failure(() => applyPatch(USER_RESOURCE, user(), { Operations: [] }))).toMatchObject({
      status: 400,
      scimType: "invalidSyntax",
    });
    expect(failure(() => applyPatch(USER_RESOURCE, user(), { schemas: [PATCH_OP], Operations: [] }))).toMatchObject({
      scimType: "invalidSyntax",
    });
    expect(failure(() => applyPatch(USER_RESOURCE, user(), [1]))).toMatchObject({ scimType: "invalidSyntax" });
    expect(failure(() => patchUser({ op: "move", path: "title", value: "x" }))).toMatchObject({
      scimType: "invalidSyntax",
    });
    expect(failure(() => patchUser("replace"))).toMatchObject({ scimType: "invalidSyntax" });
    expect(failure(() => patchUser({ op: "replace", path: 7, value: "x" }))).toMatchObject({
      scimType: "invalidSyntax",
    });
  });

  it("read-only attributes → mutability, with or without a path", () => {
    for (const path of ["id", "meta", "meta.created", "groups", 'groups[value eq "1"]']) {
      expect(
        failure(() => patchUser({ op: "replace", path, value: "1" })),
        path,
      ).toMatchObject({ status: 400, scimType: "mutability" });
    }
    expect(failure(() => patchUser({ op: "replace", value: { id: "7" } }))).toMatchObject({ scimType: "mutability" });
    // Okta restates the id when it renames a group: the same value is no change.
    const restated = applyPatch(
      GROUP_RESOURCE,
      { ...group(), id: "7" },
      patch({ op: "replace", value: { id: "7", displayName: "Renamed" } }),
    );
    expect(restated).toMatchObject({ id: "7", displayName: "Renamed" });
    expect(
      failure(() => applyPatch(GROUP_RESOURCE, { ...group(), id: "7" }, patch({ op: "replace", value: { id: "8" } }))),
    ).toMatchObject({ scimType: "mutability" });
    expect(failure(() => patchGroup({ op: "replace", path: 'members[value eq "1"].value', value: "5" }))).toMatchObject(
      { scimType: "mutability" },
    );
  });

  it("remove without a path, or replace where a value filter matches nothing → noTarget", () => {
    expect(failure(() => patchUser({ op: "remove" }))).toMatchObject({ status: 400, scimType: "noTarget" });
    expect(
      failure(() => patchUser({ op: "replace", path: 'emails[type eq "other"]', value: { value: "x@y.z" } })),
    ).toMatchObject({ scimType: "noTarget" });
  });

  it("unknown or malformed paths → invalidPath", () => {
    for (const path of [
      "nickname.first",
      "favouriteColour",
      "urn:example:custom:1.0:User:x",
      'emails[colour eq "red"].value',
      "emails[type eq]",
      'name[givenName eq "x"]',
      'emails[value eq "mailto:x"]',
    ]) {
      expect(
        failure(() => patchUser({ op: "replace", path, value: "x" })),
        path,
      ).toMatchObject({ status: 400, scimType: "invalidPath" });
    }
    expect(failure(() => patchUser({ op: "replace", value: { favouriteColour: "red" } }))).toMatchObject({
      scimType: "invalidPath",
    });
  });

  it("values of the wrong type → invalidValue", () => {
    expect(failure(() => patchUser({ op: "replace", path: "active", value: "maybe" }))).toMatchObject({
      status: 400,
      scimType: "invalidValue",
    });
    expect(failure(() => patchUser({ op: "replace", path: "name", value: 5 }))).toMatchObject({
      scimType: "invalidValue",
    });
    expect(failure(() => patchUser({ op: "replace", value: "active" }))).toMatchObject({ scimType: "invalidValue" });
    expect(failure(() => patchUser({ op: "add", path: "title" }))).toMatchObject({ scimType: "invalidValue" });
  });
});
