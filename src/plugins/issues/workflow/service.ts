import type { Kysely } from "kysely";
import type { Principal } from "../../../auth/principal.js";
import type { Clock } from "../../../clock.js";
import { randomHex } from "../../../crypto/secrets.js";
import type { Database, Organization } from "../../../db/schema.js";
import type { Issue } from "../tables.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import type { Actor, EventBus } from "../../../events/event-bus.js";
import { badRequest, notFound } from "../../../http/errors.js";
import { type ResolvedActor, resolveActor } from "../../../auth/actor.js";
import type { ProjectSnapshot } from "../domain-events.js";
import type { IssueRepository } from "../repository.js";
import { issueSnapshot } from "../snapshot.js";
import { type IssueState, stateColumns, stateFromRow } from "../state.js";
import { type ResolvedAssignee, resolveAssignee } from "./assignee.js";
import type { UpdateIssueBody } from "./schemas.js";
import { applyStatus, type StatusChange } from "./status.js";
import { IssueSubscriptions } from "../subscriptions/service.js";

export interface Access {
  organization: Organization;
  principal: Principal | null;
}

const USER_FIELDS = ["hasSeen", "isBookmarked", "isSubscribed"] as const;
const subscriptions = new IssueSubscriptions();

/** Issue changes by people and apps: PUT (single and bulk) and DELETE, each in one transaction. */
export class IssueWorkflow {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly issues: IssueRepository,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** Applies a PUT to one issue; returns the updated row. */
  async update(access: Access, ref: string, body: UpdateIssueBody): Promise<Issue> {
    const actor = await resolveActor(this.db(), access.principal);
    requireUserFor(body, actor);
    const assignee = await this.#assignee(access, body);
    return runInTransaction(this.db(), async (scope) => {
      const row = await this.issues.find(access.organization.id, ref, scope.trx, true);
      if (!row) throw notFound();
      await this.#apply(scope, access.organization.id, row, body, actor, assignee);
      return (await this.issues.find(access.organization.id, String(row.id), scope.trx)) as Issue;
    });
  }

  /** Applies a PUT to many issues; returns the changed fields, or null when no issue matched. */
  async bulkUpdate(access: Access, ids: number[], body: UpdateIssueBody): Promise<Record<string, unknown> | null> {
    const actor = await resolveActor(this.db(), access.principal);
    requireUserFor(body, actor);
    const assignee = await this.#assignee(access, body);
    return runInTransaction(this.db(), async (scope) => {
      const rows = await this.issues.lockMany(scope.trx, access.organization.id, ids);
      if (rows.length === 0) return null;
      let changed: Record<string, unknown> = {};
      for (const row of rows) changed = await this.#apply(scope, access.organization.id, row, body, actor, assignee);
      return changed;
    });
  }

  /**
   * Hides issues at once and releases their fingerprints; the worker purges their data later.
   * `beforeHide` runs in the transaction with the locked rows, before their hashes go (a discard
   * records its tombstones there: docs/issues.md, "Discard").
   */
  async delete(
    access: Access,
    ids: number[],
    beforeHide?: (scope: TransactionScope, rows: Issue[]) => Promise<void>,
  ): Promise<number> {
    return runInTransaction(this.db(), async (scope) => {
      const { trx } = scope;
      const rows = await this.issues.lockMany(trx, access.organization.id, ids);
      if (rows.length === 0) return 0;
      await beforeHide?.(scope, rows);
      const found = rows.map((row) => Number(row.id));
      await trx.updateTable("issues").set({ deleted_at: this.clock.now() }).where("id", "in", found).execute();
      await trx.deleteFrom("issue_hashes").where("issue_id", "in", found).execute();
      return found.length;
    });
  }

  /**
   * Resolves an issue on behalf of a feature (a cron monitor that recovered), in the caller's
   * transaction: the same state change, `set_resolved` activity and `issue.resolved` event as a
   * person's PUT, with `actor` as the one who acted. False when the issue is gone or not unresolved.
   */
  async resolveAs(scope: TransactionScope, organizationId: number, issueId: number, actor: Actor): Promise<boolean> {
    const row = await this.issues.find(organizationId, String(issueId), scope.trx, true);
    if (!row || row.status !== "unresolved" || row.deleted_at !== null) return false;
    const acting: ResolvedActor = { actor, user: null, userId: null };
    await this.#apply(scope, organizationId, row, { status: "resolved" }, acting, undefined);
    return true;
  }

  async #assignee(access: Access, body: UpdateIssueBody): Promise<ResolvedAssignee | null | undefined> {
    if (body.assignedTo === undefined) return undefined;
    return resolveAssignee(this.db(), access.organization.id, body.assignedTo);
  }

  async #apply(
    scope: TransactionScope,
    organizationId: number,
    row: Issue,
    body: UpdateIssueBody,
    actor: ResolvedActor,
    assignee: ResolvedAssignee | null | undefined,
  ): Promise<Record<string, unknown>> {
    const { trx } = scope;
    const now = this.clock.now();
    const state = stateFromRow(row);
    const status = await applyStatus(state, body, {
      actor: actor.user,
      now,
      latestRelease: () => this.issues.latestRelease(trx, organizationId, state.projectId),
      releaseExists: (version) => this.issues.releaseExists(trx, organizationId, state.projectId, version),
    });
    const changed: Record<string, unknown> = {};
    const activities: Array<{ type: string; data: Record<string, unknown> }> = [];
    const columns: Record<string, unknown> = {};
    if (status) {
      Object.assign(columns, stateColumns(state));
      activities.push(status.activity);
    }
    if (body.status !== undefined)
      Object.assign(changed, { status: state.status, substatus: state.substatus, statusDetails: state.statusDetails });
    const assignment = assignmentChange(row, assignee);
    if (assignment) {
      Object.assign(columns, assignment.columns);
      activities.push(assignment.activity);
    }
    if (assignee !== undefined) changed.assignedTo = assignee?.name ?? null;
    if (body.isPublic !== undefined && body.isPublic !== row.is_public) {
      Object.assign(columns, { is_public: body.isPublic, share_id: body.isPublic ? randomHex(16) : null });
      activities.push({ type: body.isPublic ? "set_public" : "set_private", data: {} });
    }
    if (body.isPublic !== undefined) changed.isPublic = body.isPublic;
    await this.#saveUserFlags(trx, row, body, actor, changed);
    if (Object.keys(columns).length > 0)
      await trx.updateTable("issues").set(columns).where("id", "=", Number(row.id)).execute();
    if (activities.length > 0) {
      await trx
        .insertInto("issue_activity")
        .values(
          activities.map((a) => ({
            organization_id: organizationId,
            issue_id: Number(row.id),
            type: a.type,
            data: JSON.stringify(a.data),
            user_id: actor.userId,
            date_created: now,
          })),
        )
        .execute();
    }
    await this.#subscribeParticipants(trx, row, actor, status, assignment ? assignee : undefined);
    await this.#emit(scope, row, state, actor, status, assignment ? assignee : undefined, now);
    return changed;
  }

  /** The new assignee (a user) and whoever resolved the issue follow it from then on. */
  async #subscribeParticipants(
    trx: Kysely<Database>,
    row: Issue,
    actor: ResolvedActor,
    status: StatusChange | null,
    assignee: ResolvedAssignee | null | undefined,
  ): Promise<void> {
    const issueId = Number(row.id);
    if (assignee?.userId) await subscriptions.subscribe(trx, issueId, [assignee.userId], "assigned");
    if (status?.event.name === "issue.resolved" && actor.userId !== null)
      await subscriptions.subscribe(trx, issueId, [actor.userId], "status_change");
  }

  async #saveUserFlags(
    trx: Kysely<Database>,
    row: Issue,
    body: UpdateIssueBody,
    actor: ResolvedActor,
    changed: Record<string, unknown>,
  ) {
    const flags = {
      ...(body.hasSeen !== undefined && { has_seen: body.hasSeen }),
      ...(body.isBookmarked !== undefined && { is_bookmarked: body.isBookmarked }),
      ...(body.isSubscribed !== undefined && { is_subscribed: body.isSubscribed, subscription_reason: "explicit" }),
    };
    if (Object.keys(flags).length === 0 || actor.userId === null) return;
    await trx
      .insertInto("issue_user_state")
      .values({ issue_id: Number(row.id), user_id: actor.userId, ...flags })
      .onConflict((oc) => oc.columns(["issue_id", "user_id"]).doUpdateSet(flags))
      .execute();
    for (const field of USER_FIELDS) if (body[field] !== undefined) changed[field] = body[field];
  }

  async #emit(
    scope: TransactionScope,
    row: Issue,
    state: IssueState,
    actor: ResolvedActor,
    status: StatusChange | null,
    assignee: ResolvedAssignee | null | undefined,
    now: Date,
  ): Promise<void> {
    if (!status && !assignee) return;
    const project = await scope.trx
      .selectFrom("projects")
      .select(["id", "slug", "name", "platform"])
      .where("id", "=", row.project_id)
      .executeTakeFirstOrThrow();
    const issue = issueSnapshot(state, project satisfies ProjectSnapshot);
    const base = { organizationId: row.organization_id, actor: actor.actor, occurredAt: now };
    if (status?.event.name === "issue.resolved") {
      await this.events.emit(scope, {
        ...base,
        name: "issue.resolved",
        payload: { issue, resolutionType: status.event.resolutionType },
      });
    } else if (status?.event.name === "issue.ignored") {
      await this.events.emit(scope, { ...base, name: "issue.ignored", payload: { issue } });
    } else if (status?.event.name === "issue.unresolved") {
      await this.events.emit(scope, { ...base, name: "issue.unresolved", payload: { issue, reason: "manual" } });
    }
    if (assignee) {
      const { userId: _userId, teamId: _teamId, ...payload } = assignee;
      await this.events.emit(scope, { ...base, name: "issue.assigned", payload: { issue, assignee: payload } });
    }
  }
}

function requireUserFor(body: UpdateIssueBody, actor: ResolvedActor): void {
  const field = USER_FIELDS.find((name) => body[name] !== undefined);
  if (field && actor.userId === null)
    throw badRequest("This field requires a user token", { [field]: ["This field requires a user token"] });
}

/** The assignment columns and activity when the assignee actually changes. */
function assignmentChange(row: Issue, assignee: ResolvedAssignee | null | undefined) {
  if (assignee === undefined) return null;
  const userId = assignee?.userId ?? null;
  const teamId = assignee?.teamId ?? null;
  if (row.assignee_user_id === userId && row.assignee_team_id === teamId) return null;
  const columns = { assignee_user_id: userId, assignee_team_id: teamId };
  if (!assignee) return { columns, activity: { type: "unassigned", data: {} } };
  const data = {
    assignee: assignee.id,
    assigneeType: assignee.type,
    ...(assignee.email ? { assigneeEmail: assignee.email } : {}),
  };
  return { columns, activity: { type: "assigned", data } };
}
