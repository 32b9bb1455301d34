import type { Kysely } from "kysely";
import { resolveActor, type ResolvedActor } from "../../../auth/actor.js";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import type { EventBus } from "../../../events/event-bus.js";
import { notFound } from "../../../http/errors.js";
import type { EventStore, StoredEvent } from "../../event-store/index.js";
import type { IssueRepository } from "../repository.js";
import { issueSnapshot } from "../snapshot.js";
import { formatShortId } from "../short-id.js";
import { stateFromRow } from "../state.js";
import type { Issue } from "../tables.js";
import type { Access } from "../workflow/service.js";
import { combineIssueRows, mergedCounters } from "./combine-rows.js";
import { chooseParent, loadProject, type MergeResult, recordMergeActivity } from "./merge.js";
import type { IssueMergeParticipant } from "./participant.js";
import { rewriteFromEvents } from "./recompute.js";
import { checkSplit, createSplitIssue, recordUnmergeActivities, storedEventSnapshot } from "./unmerge.js";

export interface IssueMergerDeps {
  db: () => Kysely<Database>;
  issues: IssueRepository;
  /** Resolved at each use, like the intake's: the event store and the issues need each other. */
  store: () => EventStore;
  /** The plugins' {@link IssueMergeParticipant}s, resolved at each use. */
  participants: () => IssueMergeParticipant[];
  events: EventBus;
  clock: Clock;
}

/**
 * Merges issues (everything of the children moves to the parent, the children are deleted) and
 * splits hashes off an issue into a new one, each in one transaction (docs/issues.md, "Merging
 * and unmerging").
 */
export class IssueMerger {
  constructor(private readonly deps: IssueMergerDeps) {}

  /** Merges the organization's live issues among `ids`; 400 for fewer than two or several projects. */
  async merge(access: Access, ids: readonly number[]): Promise<MergeResult> {
    const { db, issues, clock } = this.deps;
    const actor = await resolveActor(db(), access.principal);
    return runInTransaction(db(), async (scope) => {
      const { trx } = scope;
      const { parent, children } = chooseParent(await issues.lockMany(trx, access.organization.id, [...ids]));
      const parentId = Number(parent.id);
      const childIds = children.map((child) => Number(child.id));
      const now = clock.now();
      await combineIssueRows(trx, parentId, childIds);
      await this.deps.store().moveIssueEvents(trx, childIds, parentId);
      await trx
        .updateTable("issues")
        .set(await mergedCounters(trx, parent, children))
        .where("id", "=", parentId)
        .execute();
      const change = { organizationId: access.organization.id, parentId, childIds };
      for (const participant of this.deps.participants()) await participant.merge(trx, change);
      // As a deletion does: hidden at once, purged by the worker (their rows have all moved).
      await trx.updateTable("issues").set({ deleted_at: now }).where("id", "in", childIds).execute();
      const project = await loadProject(trx, parent.project_id);
      await recordMergeActivity(trx, parent, children, project, actor, now);
      const merged = await this.#reload(trx, parentId);
      await this.deps.events.emit(scope, {
        name: "issue.merged",
        organizationId: access.organization.id,
        actor: actor.actor,
        occurredAt: now,
        payload: {
          issue: issueSnapshot(stateFromRow(merged), project),
          children: children.map((child) => ({
            id: Number(child.id),
            shortId: formatShortId(project.slug, child.short_number),
          })),
        },
      });
      return { parent: String(parentId), children: childIds.map(String) };
    });
  }

  /** Splits `hashes` off the issue `ref` into a new issue; returns the new issue's id. */
  async unmerge(access: Access, ref: string, hashes: readonly string[]): Promise<number> {
    const { db, issues } = this.deps;
    const actor = await resolveActor(db(), access.principal);
    return runInTransaction(db(), async (scope) => {
      const { trx } = scope;
      const source = await issues.find(access.organization.id, ref, trx, true);
      if (!source) throw notFound();
      const held = await checkSplit(trx, source, hashes);
      const now = this.deps.clock.now();
      const created = await createSplitIssue(trx, source, now);
      const [sourceId, newIssueId] = [Number(source.id), Number(created.id)];
      await trx
        .updateTable("issue_hashes")
        .set({ issue_id: newIssueId })
        .where("issue_id", "=", sourceId)
        .where("hash", "in", [...hashes])
        .execute();
      const store = this.deps.store();
      await store.moveHashEvents(trx, { issueId: sourceId, issueHashes: held, hashes, toIssueId: newIssueId });
      let newest: StoredEvent | undefined;
      for (const issue of [source, created]) {
        const summary = await store.summarizeIssueEvents(trx, Number(issue.id));
        await rewriteFromEvents(trx, issue, summary);
        newest = summary.latest;
      }
      const change = { organizationId: access.organization.id, sourceId, newIssueId, hashes };
      for (const participant of this.deps.participants()) await participant.unmerge?.(trx, change);
      await recordUnmergeActivities(trx, { source, created, hashes }, actor, now);
      if (newest) await this.#announce(scope, newIssueId, newest, actor, now);
      return newIssueId;
    });
  }

  /**
   * `issue.created` for the split-off issue (the webhook Sentry's receivers know for a new
   * issue), with its newest event; one none of whose events is stored any more (retention) has
   * no event to carry, and is not announced.
   */
  async #announce(
    scope: TransactionScope,
    issueId: number,
    latest: StoredEvent,
    actor: ResolvedActor,
    now: Date,
  ): Promise<void> {
    const issue = await this.#reload(scope.trx, issueId);
    const project = await loadProject(scope.trx, issue.project_id);
    await this.deps.events.emit(scope, {
      name: "issue.created",
      organizationId: issue.organization_id,
      actor: actor.actor,
      occurredAt: now,
      payload: { issue: issueSnapshot(stateFromRow(issue), project), event: storedEventSnapshot(latest, issue) },
    });
  }

  #reload(trx: Kysely<Database>, issueId: number): Promise<Issue> {
    return trx.selectFrom("issues").selectAll().where("id", "=", issueId).executeTakeFirstOrThrow();
  }
}
