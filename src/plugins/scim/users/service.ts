import { type ScimCall, parseFilterParameter, resourceId } from "../requests/call.js";
import { invalidSyntax, resourceNotFound, scimError, uniqueness } from "../errors.js";
import { filterToSql } from "../resources/filter-sql.js";
import { stableJson, type UserState, userPatchDocument, userStateFrom, userStateOf } from "../resources/documents.js";
import { memberSnapshot, primaryEmail } from "../domain-events.js";
import type { ListQuery } from "../resources/list-query.js";
import { applyPatch } from "../resources/patch.js";
import { type Projection, project, wantsAttribute } from "../resources/projection.js";
import { type ScimDb, type ScimRepository, USER_FILTER_TARGET, type UserRow } from "../repository.js";
import { canonicalResource, checkSchemas, isObject, type JsonObject } from "../resources/input.js";
import { USER_RESOURCE } from "../resources/schema-definitions.js";
import { listResponse, serializeUser } from "../resources/serialize.js";
import type { ScimUnitOfWork, ScimWrite } from "../requests/unit-of-work.js";

const CONFLICT = "userName or externalId is already in use in this organization";

/** SCIM Users ↔ organization members. Every write runs in one transaction, with its domain events. */
export class ScimUserService {
  constructor(
    private readonly work: ScimUnitOfWork,
    private readonly repository: ScimRepository,
  ) {}

  async list(call: ScimCall, query: ListQuery) {
    const used = new Set<string>();
    const where =
      query.filter === null ? null : filterToSql(parseFilterParameter(query.filter), USER_FILTER_TARGET, used);
    const withGroups = used.has("groups") || wantsAttribute(USER_RESOURCE, query, "groups");
    const page = await this.repository.listUsers(
      this.work.read(),
      call.organization.id,
      { where, offset: query.startIndex - 1, limit: query.count },
      withGroups,
    );
    const resources = page.rows.map((row) => project(USER_RESOURCE, serializeUser(row, call.baseUrl), query));
    return listResponse(resources, page.total, query.startIndex);
  }

  async get(call: ScimCall, rawId: string, projection: Projection) {
    const row = await this.repository.findUser(
      this.work.read(),
      call.organization.id,
      resourceId(rawId, "User"),
      wantsAttribute(USER_RESOURCE, projection, "groups"),
    );
    if (!row) throw resourceNotFound("User", rawId);
    return project(USER_RESOURCE, serializeUser(row, call.baseUrl), projection);
  }

  /** POST: a new membership, and a user account when none has the email (accounts are shared across organizations). */
  async create(call: ScimCall, body: unknown) {
    const state = userStateFrom(readUser(body), { role: "member", active: true });
    return this.work.write(call, CONFLICT, async ({ db, now, emit }) => {
      await this.assertUnique(db, call, state, null);
      const email = primaryEmail(state.attributes) ?? (state.userName.includes("@") ? state.userName : null);
      const account =
        (email !== null ? await this.repository.findAccountByEmail(db, email) : undefined) ??
        (await this.repository.insertAccount(db, {
          username: state.userName,
          email,
          name: fullName(state.attributes),
          now,
        }));
      const inserted = await this.repository.insertMember(db, {
        ...state,
        organizationId: call.organization.id,
        userId: account.id,
        now,
      });
      if (!inserted)
        throw uniqueness(
          `The user account with email ${JSON.stringify(email)} is already a member of this organization`,
        );
      const row = await this.load(db, call, inserted.id);
      const resource = serializeUser(row, call.baseUrl);
      await emit("member.provisioned", { member: memberSnapshot(row), resource });
      return resource;
    });
  }

  /** PUT: a full replacement; absent `active` and `svcOrgRole` keep their values. */
  async replace(call: ScimCall, rawId: string, body: unknown) {
    const canonical = readUser(body);
    const id = resourceId(rawId, "User");
    return this.work.write(call, CONFLICT, async (write) => {
      const row = await this.load(write.db, call, id, rawId);
      return this.save(write, call, row, userStateFrom(canonical, row));
    });
  }

  /** PATCH: the operations applied to the stored resource in memory, then saved at once. */
  async patch(call: ScimCall, rawId: string, body: unknown) {
    const id = resourceId(rawId, "User");
    return this.work.write(call, CONFLICT, async (write) => {
      const row = await this.load(write.db, call, id, rawId);
      const patched = applyPatch(USER_RESOURCE, userPatchDocument(row), body);
      return this.save(write, call, row, userStateFrom(canonicalResource(USER_RESOURCE, patched), row));
    });
  }

  /** DELETE: the membership and its team memberships go; the user account stays. */
  async remove(call: ScimCall, rawId: string): Promise<void> {
    const id = resourceId(rawId, "User");
    await this.work.write(call, CONFLICT, async ({ db, emit }) => {
      const row = await this.load(db, call, id, rawId);
      if (row.role === "owner" && (await this.otherActiveOwners(db, call, row)) === 0) {
        throw scimError(403, null, "The only owner of the organization cannot be removed through SCIM");
      }
      await this.repository.deleteMember(db, call.organization.id, row.id);
      await emit("member.removed", { member: memberSnapshot(row), resource: serializeUser(row, call.baseUrl) });
    });
  }

  private async save({ db, now, emit }: ScimWrite, call: ScimCall, row: UserRow, state: UserState) {
    if (stableJson(state) === stableJson(userStateOf(row))) return serializeUser(row, call.baseUrl);
    await this.assertUnique(db, call, state, row.id);
    const losesOwner = row.role === "owner" && row.active && (state.role !== "owner" || !state.active);
    if (losesOwner && (await this.otherActiveOwners(db, call, row)) === 0) {
      throw scimError(
        403,
        null,
        "The only owner of the organization cannot be deactivated or given another role through SCIM",
      );
    }
    await this.repository.updateMember(db, call.organization.id, row.id, { ...state, now });
    const updated = await this.load(db, call, row.id);
    const resource = serializeUser(updated, call.baseUrl);
    const member = memberSnapshot(updated);
    await emit("member.updated", { member, previous: memberSnapshot(row), resource });
    if (row.active && !state.active) await emit("member.deactivated", { member, resource });
    if (!row.active && state.active) await emit("member.reactivated", { member, resource });
    return resource;
  }

  /**
   * 409 uniqueness: userName in any letter case, externalId exactly (docs/scim.md, "4. What the
   * operations mean here").
   */
  private async assertUnique(db: ScimDb, call: ScimCall, state: UserState, self: number | null): Promise<void> {
    const byName = await this.repository.findUserByUserName(db, call.organization.id, state.userName);
    if (byName && byName.id !== self)
      throw uniqueness(`userName ${JSON.stringify(state.userName)} is already in use in this organization`);
    if (state.externalId === null) return;
    const byExternalId = await this.repository.findUserByExternalId(db, call.organization.id, state.externalId);
    if (byExternalId && byExternalId.id !== self)
      throw uniqueness(`externalId ${JSON.stringify(state.externalId)} is already in use in this organization`);
  }

  private async otherActiveOwners(db: ScimDb, call: ScimCall, row: UserRow): Promise<number> {
    return (await this.repository.countActiveOwners(db, call.organization.id)) - (row.active ? 1 : 0);
  }

  private async load(db: ScimDb, call: ScimCall, id: number, rawId = String(id)): Promise<UserRow> {
    const row = await this.repository.findUser(db, call.organization.id, id);
    if (!row) throw resourceNotFound("User", rawId);
    return row;
  }
}

/** A POST/PUT body: our schemas, known attributes, canonical form. */
function readUser(body: unknown): JsonObject {
  if (!isObject(body)) throw invalidSyntax("The body must be a SCIM User object");
  checkSchemas(USER_RESOURCE, body);
  return canonicalResource(USER_RESOURCE, body);
}

/** The account's display name from what the identity provider sent. */
function fullName(attributes: JsonObject): string {
  const name = isObject(attributes.name) ? attributes.name : {};
  const parts = [name.givenName, name.familyName].filter(
    (part): part is string => typeof part === "string" && part !== "",
  );
  const candidates = [name.formatted, parts.join(" "), attributes.displayName];
  return (
    candidates.find((candidate): candidate is string => typeof candidate === "string" && candidate.trim() !== "") ?? ""
  ).slice(0, 200);
}
