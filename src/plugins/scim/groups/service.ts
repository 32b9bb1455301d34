import { type ScimCall, parseFilterParameter, resourceId } from "../requests/call.js";
import { type GroupState, groupPatchDocument, groupStateFrom, groupStateOf } from "../resources/documents.js";
import { invalidSyntax, invalidValue, resourceNotFound, uniqueness } from "../errors.js";
import { type ScimTeamMemberRef, teamSnapshot } from "../domain-events.js";
import { filterToSql } from "../resources/filter-sql.js";
import type { ListQuery } from "../resources/list-query.js";
import { applyPatch } from "../resources/patch.js";
import { type Projection, project, wantsAttribute } from "../resources/projection.js";
import { GROUP_FILTER_TARGET, type GroupRow, type ScimDb, type ScimRepository } from "../repository.js";
import { canonicalResource, checkSchemas, isObject } from "../resources/input.js";
import { GROUP_RESOURCE } from "../resources/schema-definitions.js";
import { listResponse, serializeGroup } from "../resources/serialize.js";
import type { ScimUnitOfWork, ScimWrite } from "../requests/unit-of-work.js";

const CONFLICT = "displayName or externalId is already in use in this organization";

/** A slug for a new team from its display name, unique in the organization (`platform`, `platform-2`, …). */
function teamSlug(displayName: string, taken: Set<string>): string {
  const base =
    displayName
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, "-")
      .replace(/^[-_]+|-+$/g, "")
      .slice(0, 40) || "team";
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if (!taken.has(slug)) return slug;
  }
}

/** SCIM Groups ↔ teams. The slug is chosen once, at creation: renaming keeps it (assignments use `#slug`). */
export class ScimGroupService {
  constructor(
    private readonly work: ScimUnitOfWork,
    private readonly repository: ScimRepository,
  ) {}

  async list(call: ScimCall, query: ListQuery) {
    const used = new Set<string>();
    const where =
      query.filter === null ? null : filterToSql(parseFilterParameter(query.filter), GROUP_FILTER_TARGET, used);
    // Entra and Okta list with excludedAttributes=members: large teams are then never aggregated.
    const withMembers = used.has("members") || wantsAttribute(GROUP_RESOURCE, query, "members");
    const page = await this.repository.listGroups(
      this.work.read(),
      call.organization.id,
      { where, offset: query.startIndex - 1, limit: query.count },
      withMembers,
    );
    const resources = page.rows.map((row) => project(GROUP_RESOURCE, serializeGroup(row, call.baseUrl), query));
    return listResponse(resources, page.total, query.startIndex);
  }

  async get(call: ScimCall, rawId: string, projection: Projection) {
    const row = await this.repository.findGroup(
      this.work.read(),
      call.organization.id,
      resourceId(rawId, "Group"),
      wantsAttribute(GROUP_RESOURCE, projection, "members"),
    );
    if (!row) throw resourceNotFound("Group", rawId);
    return project(GROUP_RESOURCE, serializeGroup(row, call.baseUrl), projection);
  }

  async create(call: ScimCall, body: unknown) {
    const state = groupStateFrom(readGroup(body));
    return this.work.write(call, CONFLICT, async ({ db, now, emit }) => {
      await this.assertUnique(db, call, state, null);
      await this.assertMembersExist(db, call, state.memberIds);
      const slug = teamSlug(
        state.displayName,
        await this.repository.slugsLike(db, call.organization.id, teamSlug(state.displayName, new Set())),
      );
      const { id } = await this.repository.insertTeam(db, {
        organizationId: call.organization.id,
        slug,
        name: state.displayName,
        externalId: state.externalId,
        now,
      });
      await this.repository.addTeamMembers(db, call.organization.id, id, state.memberIds, now);
      const row = await this.load(db, call, id);
      const resource = serializeGroup(row, call.baseUrl);
      await emit("team.created", { team: teamSnapshot(row), resource });
      if (state.memberIds.length > 0) {
        await emit("team.members_changed", {
          team: teamSnapshot(row),
          added: await this.refs(db, call, state.memberIds),
          removed: [],
        });
      }
      return resource;
    });
  }

  /** PUT: a full replacement (absent `members` empties the team). */
  async replace(call: ScimCall, rawId: string, body: unknown) {
    const state = groupStateFrom(readGroup(body));
    const id = resourceId(rawId, "Group");
    return this.work.write(call, CONFLICT, async (write) =>
      this.save(write, call, await this.load(write.db, call, id, rawId), state),
    );
  }

  async patch(call: ScimCall, rawId: string, body: unknown) {
    const id = resourceId(rawId, "Group");
    return this.work.write(call, CONFLICT, async (write) => {
      const row = await this.load(write.db, call, id, rawId);
      const patched = applyPatch(GROUP_RESOURCE, groupPatchDocument(row), body);
      return this.save(write, call, row, groupStateFrom(canonicalResource(GROUP_RESOURCE, patched)));
    });
  }

  async remove(call: ScimCall, rawId: string): Promise<void> {
    const id = resourceId(rawId, "Group");
    await this.work.write(call, CONFLICT, async ({ db, emit }) => {
      const row = await this.load(db, call, id, rawId);
      await this.repository.deleteTeam(db, call.organization.id, row.id);
      await emit("team.deleted", { team: teamSnapshot(row) });
    });
  }

  private async save({ db, now, emit }: ScimWrite, call: ScimCall, row: GroupRow, state: GroupState) {
    const before = groupStateOf(row);
    const renamed = state.displayName !== before.displayName || state.externalId !== before.externalId;
    const added = state.memberIds.filter((id) => !before.memberIds.includes(id));
    const removed = before.memberIds.filter((id) => !state.memberIds.includes(id));
    if (!renamed && added.length === 0 && removed.length === 0) return serializeGroup(row, call.baseUrl);
    await this.assertUnique(db, call, state, row.id);
    await this.assertMembersExist(db, call, added);
    const removedRefs = await this.refs(db, call, removed);
    await this.repository.updateTeam(db, call.organization.id, row.id, {
      name: state.displayName,
      externalId: state.externalId,
      now,
    });
    await this.repository.addTeamMembers(db, call.organization.id, row.id, added, now);
    await this.repository.removeTeamMembers(db, call.organization.id, row.id, removed);
    const updated = await this.load(db, call, row.id);
    const resource = serializeGroup(updated, call.baseUrl);
    const team = teamSnapshot(updated);
    if (renamed) await emit("team.updated", { team, previous: teamSnapshot(row), resource });
    if (added.length > 0 || removed.length > 0) {
      await emit("team.members_changed", { team, added: await this.refs(db, call, added), removed: removedRefs });
    }
    return resource;
  }

  /** 409 uniqueness: displayName in any letter case, externalId exactly. */
  private async assertUnique(db: ScimDb, call: ScimCall, state: GroupState, self: number | null): Promise<void> {
    const byName = await this.repository.findGroupByName(db, call.organization.id, state.displayName);
    if (byName && byName.id !== self)
      throw uniqueness(`displayName ${JSON.stringify(state.displayName)} is already in use in this organization`);
    if (state.externalId === null) return;
    const byExternalId = await this.repository.findGroupByExternalId(db, call.organization.id, state.externalId);
    if (byExternalId && byExternalId.id !== self)
      throw uniqueness(`externalId ${JSON.stringify(state.externalId)} is already in use in this organization`);
  }

  private async assertMembersExist(db: ScimDb, call: ScimCall, memberIds: number[]): Promise<void> {
    const existing = await this.repository.memberUsers(db, call.organization.id, memberIds);
    const unknown = memberIds.find((id) => !existing.has(id));
    if (unknown !== undefined)
      throw invalidValue(`Unknown member "${unknown}": "members.value" must be the id of a User of this organization`);
  }

  private async refs(db: ScimDb, call: ScimCall, memberIds: number[]): Promise<ScimTeamMemberRef[]> {
    const users = await this.repository.memberUsers(db, call.organization.id, memberIds);
    return memberIds.map((id) => ({ id: String(id), userId: String(users.get(id) ?? "") }));
  }

  private async load(db: ScimDb, call: ScimCall, id: number, rawId = String(id)): Promise<GroupRow> {
    const row = await this.repository.findGroup(db, call.organization.id, id);
    if (!row) throw resourceNotFound("Group", rawId);
    return row;
  }
}

function readGroup(body: unknown) {
  if (!isObject(body)) throw invalidSyntax("The body must be a SCIM Group object");
  checkSchemas(GROUP_RESOURCE, body);
  return canonicalResource(GROUP_RESOURCE, body);
}
