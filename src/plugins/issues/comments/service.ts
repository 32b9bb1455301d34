import { type Kysely, sql } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import type { Issue, IssueComment } from "../tables.js";
import { runInTransaction, type TransactionScope } from "../../../db/transaction.js";
import type { EventBus } from "../../../events/event-bus.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { keysetCondition, keysetPage, type Page } from "../../../http/pagination.js";
import { type ResolvedActor, resolveActor } from "../../../auth/actor.js";
import type { CommentSnapshot } from "../domain-events.js";
import type { IssueRepository } from "../repository.js";
import { issueSnapshot } from "../snapshot.js";
import { stateFromRow } from "../state.js";
import type { Access } from "../workflow/service.js";
import { IssueSubscriptions } from "../subscriptions/service.js";
import { parseCommentId } from "./schemas.js";
import type { CommentWithAuthor } from "./serialize.js";

type CommentEvent = "comment.created" | "comment.updated" | "comment.deleted";

const subscriptions = new IssueSubscriptions();

/** The missing-scope 403 (docs/authentication.md, "Errors"): someone else's comment needs `event:admin`. */
const needsAdmin = () =>
  new ApiError(
    403,
    "You do not have permission to perform this action.",
    { requiredScopes: ["event:admin"] },
    { "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="event:admin"' },
  );

/**
 * Comments on issues (`…/issues/{id}/comments/`). Each change runs in one transaction with the
 * issue row locked: the comment, the issue's `num_comments`, its `note` activity and the
 * `comment.*` domain event (hence the webhooks) commit or roll back together.
 *
 * Decided here: a token without a user (organization- or installation-bound) may comment; the
 * comment has `user: null` and its actor is the app or the token. Since no later caller can
 * prove to be that same author, only `event:admin` can edit or delete such a comment.
 *
 * As in Sentry, where a comment *is* its `note` activity, editing a comment edits that note and
 * deleting it removes the note, so deleted text does not live on in the issue's activity.
 */
export class CommentService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly issues: IssueRepository,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** One page of an issue's comments, newest first. */
  async list(
    organizationId: number,
    issueRef: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<Page<CommentWithAuthor>> {
    const issue = await this.issues.find(organizationId, issueRef);
    if (!issue) throw notFound();
    return keysetPage(
      async (bound) => {
        const condition = keysetCondition(bound, "c.date_created", "c.id");
        let query = withAuthor(this.db())
          .where("c.organization_id", "=", organizationId)
          .where("c.issue_id", "=", Number(issue.id));
        if (condition) query = query.where(condition);
        const rows = await query
          .orderBy("c.date_created", bound.order)
          .orderBy("c.id", bound.order)
          .limit(bound.limit)
          .execute();
        return rows.map(toCommentWithAuthor);
      },
      { cursor, limit, keyOf: (row) => row.date_created.getTime(), idOf: (row) => Number(row.id) },
    );
  }

  async create(access: Access, issueRef: string, text: string): Promise<CommentWithAuthor> {
    const actor = await resolveActor(this.db(), access.principal);
    return runInTransaction(this.db(), async (scope) => {
      const issue = await this.#lockIssue(scope, access, issueRef);
      const now = this.clock.now();
      const comment = await scope.trx
        .insertInto("issue_comments")
        .values({
          organization_id: issue.organization_id,
          issue_id: Number(issue.id),
          user_id: actor.userId,
          text,
          date_created: now,
          date_updated: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await scope.trx
        .updateTable("issues")
        .set((eb) => ({ num_comments: eb("num_comments", "+", 1) }))
        .where("id", "=", Number(issue.id))
        .execute();
      // The note is written with the comment's own time and author: that is how it is found again.
      await scope.trx
        .insertInto("issue_activity")
        .values({
          organization_id: issue.organization_id,
          issue_id: Number(issue.id),
          type: "note",
          data: JSON.stringify({ text }),
          user_id: actor.userId,
          date_created: now,
        })
        .execute();
      // A commenter follows the issue from then on (before the event: its subscribers see them).
      if (actor.userId !== null)
        await subscriptions.subscribe(scope.trx, Number(issue.id), [actor.userId], "commented");
      await this.#emit(scope, "comment.created", issue, comment, actor);
      return this.#load(scope, comment.id);
    });
  }

  async update(
    access: Access,
    issueRef: string,
    commentId: string,
    text: string,
    canModerate: boolean,
  ): Promise<CommentWithAuthor> {
    const actor = await resolveActor(this.db(), access.principal);
    return runInTransaction(this.db(), async (scope) => {
      const issue = await this.#lockIssue(scope, access, issueRef);
      const comment = await this.#editableComment(scope, issue, commentId, actor, canModerate);
      // The same text is no edit: no new dateUpdated, no comment.updated webhook for nothing.
      if (comment.text === text) return this.#load(scope, comment.id);
      const updated = await scope.trx
        .updateTable("issue_comments")
        .set({ text, date_updated: this.clock.now() })
        .where("id", "=", Number(comment.id))
        .returningAll()
        .executeTakeFirstOrThrow();
      await scope.trx
        .updateTable("issue_activity")
        .set({ data: JSON.stringify({ text }) })
        .where("id", "=", noteOf(scope.trx, comment))
        .execute();
      await this.#emit(scope, "comment.updated", issue, updated, actor);
      return this.#load(scope, updated.id);
    });
  }

  async delete(access: Access, issueRef: string, commentId: string, canModerate: boolean): Promise<void> {
    const actor = await resolveActor(this.db(), access.principal);
    await runInTransaction(this.db(), async (scope) => {
      const issue = await this.#lockIssue(scope, access, issueRef);
      const comment = await this.#editableComment(scope, issue, commentId, actor, canModerate);
      await scope.trx.deleteFrom("issue_activity").where("id", "=", noteOf(scope.trx, comment)).execute();
      await scope.trx.deleteFrom("issue_comments").where("id", "=", Number(comment.id)).execute();
      await scope.trx
        .updateTable("issues")
        .set({ num_comments: sql<number>`greatest(num_comments - 1, 0)` })
        .where("id", "=", Number(issue.id))
        .execute();
      await this.#emit(scope, "comment.deleted", issue, comment, actor);
    });
  }

  /** Locks the issue: comment changes on one issue (and ingestion's updates to it) take turns. */
  async #lockIssue(scope: TransactionScope, access: Access, ref: string): Promise<Issue> {
    const issue = await this.issues.find(access.organization.id, ref, scope.trx, true);
    if (!issue) throw notFound();
    return issue;
  }

  /** A comment of this issue that the actor wrote — or any of them, with `event:admin`. */
  async #editableComment(
    scope: TransactionScope,
    issue: Issue,
    rawId: string,
    actor: ResolvedActor,
    canModerate: boolean,
  ): Promise<IssueComment> {
    const id = parseCommentId(rawId);
    const comment =
      id === null
        ? undefined
        : await scope.trx
            .selectFrom("issue_comments")
            .selectAll()
            .where("issue_id", "=", Number(issue.id))
            .where("id", "=", id)
            .executeTakeFirst();
    if (!comment) throw notFound();
    const isAuthor = comment.user_id !== null && comment.user_id === actor.userId;
    if (!isAuthor && !canModerate) throw needsAdmin();
    return comment;
  }

  async #load(scope: TransactionScope, id: number | string): Promise<CommentWithAuthor> {
    return toCommentWithAuthor(await withAuthor(scope.trx).where("c.id", "=", Number(id)).executeTakeFirstOrThrow());
  }

  async #emit(
    scope: TransactionScope,
    name: CommentEvent,
    issue: Issue,
    comment: IssueComment,
    actor: ResolvedActor,
  ): Promise<void> {
    const project = await scope.trx
      .selectFrom("projects")
      .select(["id", "slug", "name", "platform"])
      .where("id", "=", issue.project_id)
      .executeTakeFirstOrThrow();
    const snapshot: CommentSnapshot = {
      id: Number(comment.id),
      issueId: Number(comment.issue_id),
      text: comment.text,
      userId: comment.user_id,
      dateCreated: comment.date_created,
      dateUpdated: comment.date_updated,
    };
    await this.events.emit(scope, {
      name,
      organizationId: issue.organization_id,
      actor: actor.actor,
      occurredAt: this.clock.now(),
      payload: { issue: issueSnapshot(stateFromRow(issue), project), comment: snapshot },
    });
  }
}

/** Comments joined with their author's account. */
function withAuthor(db: Kysely<Database>) {
  return db
    .selectFrom("issue_comments as c")
    .leftJoin("users as u", "u.id", "c.user_id")
    .selectAll("c")
    .select(["u.id as author_id", "u.username as author_username", "u.name as author_name", "u.email as author_email"]);
}

type JoinedRow = IssueComment & {
  author_id: number | null;
  author_username: string | null;
  author_name: string | null;
  author_email: string | null;
};

function toCommentWithAuthor({
  author_id,
  author_username,
  author_name,
  author_email,
  ...comment
}: JoinedRow): CommentWithAuthor {
  const author =
    author_id === null
      ? null
      : { id: author_id, username: author_username ?? "", name: author_name ?? "", email: author_email };
  return { ...comment, author };
}

/**
 * The `note` activity written with a comment: same issue, author and time, and its current text.
 * Should two notes match (the same author posting the same text in the same millisecond), they
 * are indistinguishable and either one stands for the comment.
 */
function noteOf(trx: Kysely<Database>, comment: IssueComment) {
  return trx
    .selectFrom("issue_activity")
    .select("id")
    .where("issue_id", "=", Number(comment.issue_id))
    .where("type", "=", "note")
    .where("user_id", "is not distinct from", comment.user_id)
    .where("date_created", "=", comment.date_created)
    .where(sql<string>`data->>'text'`, "=", comment.text)
    .limit(1);
}
