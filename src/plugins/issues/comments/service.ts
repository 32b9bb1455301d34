import type { Kysely } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database, Issue, IssueComment } from "../../../db/schema.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import type { EventBus } from "../../../events/event-bus.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
import { type ResolvedActor, resolveActor } from "../actor.js";
import type { CommentSnapshot } from "../domain-events.js";
import type { IssueRepository } from "../repository.js";
import { issueSnapshot } from "../snapshot.js";
import { stateFromRow } from "../state.js";
import type { Access } from "../workflow/service.js";

const FORBIDDEN = "You do not have permission to perform this action.";

/** Comments on issues: each change updates the issue's count and activity and emits `comment.*`. */
export class CommentService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly issues: IssueRepository,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  async requireIssue(organizationId: number, ref: string): Promise<Issue> {
    const issue = await this.issues.find(organizationId, ref);
    if (!issue) throw notFound();
    return issue;
  }

  list(organizationId: number, issueId: number, bound: KeysetBound) {
    const condition = keysetCondition(bound, "c.date_created", "c.id");
    let query = this.db()
      .selectFrom("issue_comments as c")
      .leftJoin("users as u", "u.id", "c.user_id")
      .select(["c.id", "c.issue_id", "c.text", "c.date_created", "c.date_updated", "c.user_id", "u.username", "u.name", "u.email"])
      .where("c.organization_id", "=", organizationId)
      .where("c.issue_id", "=", issueId);
    if (condition) query = query.where(condition);
    return query.orderBy("c.date_created", bound.order).orderBy("c.id", bound.order).limit(bound.limit).execute();
  }

  /** Organization tokens may comment too; their comments have no user. */
  async create(access: Access, issueRef: string, text: string) {
    const actor = await resolveActor(this.db(), access.principal);
    const now = this.clock.now();
    return runInTransaction(this.db(), async (scope) => {
      const issue = await this.#lockIssue(scope, access.organization.id, issueRef);
      const comment = await scope.trx
        .insertInto("issue_comments")
        .values({ organization_id: issue.organization_id, issue_id: Number(issue.id), user_id: actor.userId, text, date_created: now, date_updated: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      await scope.trx.updateTable("issues").set((eb) => ({ num_comments: eb("num_comments", "+", 1) })).where("id", "=", Number(issue.id)).execute();
      await scope.trx
        .insertInto("issue_activity")
        .values({ organization_id: issue.organization_id, issue_id: Number(issue.id), type: "note", data: JSON.stringify({ text }), user_id: actor.userId, date_created: now })
        .execute();
      await this.#emit(scope, "comment.created", issue, comment, actor);
      return this.#withAuthor(scope, comment);
    });
  }

  async update(access: Access, issueRef: string, commentId: string, text: string, canModerate: boolean) {
    const actor = await resolveActor(this.db(), access.principal);
    return runInTransaction(this.db(), async (scope) => {
      const issue = await this.#lockIssue(scope, access.organization.id, issueRef);
      const comment = await this.#ownComment(scope, issue, commentId, actor, canModerate);
      const updated = await scope.trx
        .updateTable("issue_comments")
        .set({ text, date_updated: this.clock.now() })
        .where("id", "=", Number(comment.id))
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.#emit(scope, "comment.updated", issue, updated, actor);
      return this.#withAuthor(scope, updated);
    });
  }

  async delete(access: Access, issueRef: string, commentId: string, canModerate: boolean): Promise<void> {
    const actor = await resolveActor(this.db(), access.principal);
    await runInTransaction(this.db(), async (scope) => {
      const issue = await this.#lockIssue(scope, access.organization.id, issueRef);
      const comment = await this.#ownComment(scope, issue, commentId, actor, canModerate);
      await scope.trx.deleteFrom("issue_comments").where("id", "=", Number(comment.id)).execute();
      await scope.trx.updateTable("issues").set((eb) => ({ num_comments: eb("num_comments", "-", 1) })).where("id", "=", Number(issue.id)).execute();
      await this.#emit(scope, "comment.deleted", issue, comment, actor);
    });
  }

  /** The comment with its author's names, as lists show it. */
  async #withAuthor({ trx }: TransactionScope, comment: IssueComment) {
    const author = comment.user_id === null ? undefined : await trx.selectFrom("users").select(["username", "name", "email"]).where("id", "=", comment.user_id).executeTakeFirst();
    return { ...comment, username: author?.username ?? null, name: author?.name ?? null, email: author?.email ?? null };
  }

  async #lockIssue(scope: TransactionScope, organizationId: number, ref: string): Promise<Issue> {
    const issue = await this.issues.find(organizationId, ref, scope.trx, true);
    if (!issue) throw notFound();
    return issue;
  }

  /** A comment of this issue, which the actor wrote — or any, with `event:admin`. */
  async #ownComment(scope: TransactionScope, issue: Issue, commentId: string, actor: ResolvedActor, canModerate: boolean): Promise<IssueComment> {
    const comment = /^\d{1,15}$/.test(commentId)
      ? await scope.trx.selectFrom("issue_comments").selectAll().where("issue_id", "=", Number(issue.id)).where("id", "=", Number(commentId)).executeTakeFirst()
      : undefined;
    if (!comment) throw notFound();
    const isAuthor = comment.user_id !== null && comment.user_id === actor.userId;
    if (!isAuthor && !canModerate) throw new ApiError(403, FORBIDDEN, { requiredScopes: ["event:admin"] });
    return comment;
  }

  async #emit(scope: TransactionScope, name: "comment.created" | "comment.updated" | "comment.deleted", issue: Issue, comment: IssueComment, actor: ResolvedActor) {
    const project = await scope.trx.selectFrom("projects").select(["id", "slug", "name", "platform"]).where("id", "=", issue.project_id).executeTakeFirstOrThrow();
    const state = stateFromRow(issue);
    const snapshot: CommentSnapshot = {
      id: Number(comment.id),
      issueId: Number(comment.issue_id),
      text: comment.text,
      userId: comment.user_id,
      dateCreated: comment.date_created,
      dateUpdated: comment.date_updated,
    };
    await this.events.emit(scope, { name, organizationId: issue.organization_id, actor: actor.actor, occurredAt: this.clock.now(), payload: { issue: issueSnapshot(state, project), comment: snapshot } });
  }
}
