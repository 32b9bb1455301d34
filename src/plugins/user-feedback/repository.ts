import { type Expression, type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../http/pagination.js";
import type { FeedbackInput } from "./input.js";

/** A screenshot kept with a feedback. */
export interface ScreenshotInput {
  name: string;
  contentType: string;
  data: Uint8Array;
}

const COLUMNS = [
  "f.id",
  "f.organization_id",
  "f.project_id",
  "f.kind",
  "f.feedback_event_id",
  "f.event_id",
  "f.issue_id",
  "f.name",
  "f.email",
  "f.comments",
  "f.url",
  "f.source",
  "f.environment",
  "f.release",
  "f.user",
  "f.date_created",
] as const;

/** User feedback rows, always reached through their organization. */
export class UserFeedbackRepository {
  constructor(private readonly db: () => Kysely<Database>) {}

  private rows(db: Kysely<Database>, organizationId: number) {
    return db
      .selectFrom("user_feedback as f")
      .select(COLUMNS)
      .select((eb) =>
        eb
          .selectFrom("user_feedback_attachments as a")
          .select(sql<number>`count(*)::int`.as("n"))
          .whereRef("a.feedback_id", "=", "f.id")
          .as("attachment_count"),
      )
      .where("f.organization_id", "=", organizationId);
  }

  /** One page of a project's feedback, newest first. */
  listByProject(organizationId: number, projectId: number, bound: KeysetBound) {
    return this.page(this.rows(this.db(), organizationId).where("f.project_id", "=", projectId), bound);
  }

  /** One page of an issue's feedback, newest first. */
  listByIssue(organizationId: number, issueId: number, bound: KeysetBound) {
    return this.page(this.rows(this.db(), organizationId).where("f.issue_id", "=", issueId), bound);
  }

  private page(query: ReturnType<UserFeedbackRepository["rows"]>, bound: KeysetBound) {
    const condition = keysetCondition(bound, "f.date_created", "f.id");
    return (condition ? query.where(condition) : query)
      .orderBy("f.date_created", bound.order)
      .orderBy("f.id", bound.order)
      .limit(bound.limit)
      .execute();
  }

  find(db: Kysely<Database>, organizationId: number, id: number) {
    return this.rows(db, organizationId).where("f.id", "=", id).executeTakeFirst();
  }

  /** The legacy report already kept for this event, if any. */
  findReport(db: Kysely<Database>, projectId: number, eventId: string) {
    return db
      .selectFrom("user_feedback")
      .select(["id", "date_created"])
      .where("project_id", "=", projectId)
      .where("kind", "=", "user_report")
      .where("event_id", "=", eventId)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Keeps a report; null when it conflicts with one kept before (a retried `feedback` item, a second report of an event). */
  async insert(
    db: Kysely<Database>,
    target: { organizationId: number; projectId: number; issueId: number | null; now: Date },
    input: FeedbackInput,
  ): Promise<number | null> {
    const row = await db
      .insertInto("user_feedback")
      .values({
        organization_id: target.organizationId,
        project_id: target.projectId,
        issue_id: target.issueId,
        date_created: target.now,
        ...columnsOf(input),
      })
      // The conflict target is the kind's unique index: a retried `feedback` item, or a second
      // report of one event raced in by another request (the caller then replaces it).
      .onConflict((oc) =>
        input.kind === "feedback"
          ? oc.columns(["project_id", "feedback_event_id"]).where("feedback_event_id", "is not", null).doNothing()
          : oc.columns(["project_id", "event_id"]).where("kind", "=", "user_report").doNothing(),
      )
      .returning("id")
      .executeTakeFirst();
    return row ? Number(row.id) : null;
  }

  /** Replaces a legacy report's text (Sentry lets a report be corrected shortly after it was sent). */
  async replace(db: Kysely<Database>, id: number, issueId: number | null, input: FeedbackInput): Promise<void> {
    await db
      .updateTable("user_feedback")
      .set({ name: input.name, email: input.email, comments: input.comments, issue_id: issueId })
      .where("id", "=", id)
      .execute();
  }

  async addScreenshots(
    db: Kysely<Database>,
    organizationId: number,
    feedbackId: number,
    screenshots: readonly ScreenshotInput[],
  ): Promise<void> {
    if (screenshots.length === 0) return;
    await db
      .insertInto("user_feedback_attachments")
      .values(
        screenshots.map((screenshot) => ({
          feedback_id: feedbackId,
          organization_id: organizationId,
          name: screenshot.name,
          content_type: screenshot.contentType,
          size: screenshot.data.byteLength,
          data: screenshot.data,
        })),
      )
      .execute();
  }

  /** A feedback's screenshots, without their bytes. */
  screenshots(organizationId: number, feedbackIds: readonly number[]) {
    if (feedbackIds.length === 0) return Promise.resolve([]);
    return this.db()
      .selectFrom("user_feedback_attachments")
      .select(["id", "feedback_id", "name", "content_type", "size"])
      .where("organization_id", "=", organizationId)
      .where("feedback_id", "in", feedbackIds)
      .orderBy("id")
      .execute();
  }

  /** One screenshot with its bytes, of a feedback of the organization's project. */
  screenshot(organizationId: number, projectId: number, feedbackId: number, attachmentId: number) {
    return this.db()
      .selectFrom("user_feedback_attachments as a")
      .innerJoin("user_feedback as f", "f.id", "a.feedback_id")
      .select(["a.name", "a.content_type", "a.data"])
      .where("a.organization_id", "=", organizationId)
      .where("f.organization_id", "=", organizationId)
      .where("f.project_id", "=", projectId)
      .where("a.feedback_id", "=", feedbackId)
      .where("a.id", "=", attachmentId)
      .executeTakeFirst();
  }

  /** The reports of the outer statement's issue, as a subquery (the issues' `userReportCount`). */
  countOfIssue(eb: ExpressionBuilder<Database, "issues">): Expression<number> {
    return eb
      .selectFrom("user_feedback as uf")
      .select(sql<number>`count(*)::int`.as("n"))
      .whereRef("uf.issue_id", "=", "issues.id")
      .$asScalar();
  }

  /** Reports counted per issue (the issues' `userReportCount`), in one statement. */
  async countByIssue(db: Kysely<Database>, issueIds: readonly number[]): Promise<Map<number, number>> {
    if (issueIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("user_feedback")
      .select(["issue_id", sql<number>`count(*)::int`.as("n")])
      .where("issue_id", "in", issueIds)
      .groupBy("issue_id")
      .execute();
    return new Map(rows.map((row) => [Number(row.issue_id), Number(row.n)]));
  }

  /** Reports naming an event whose issue is not known yet, received since `since`, newest first. */
  unlinked(db: Kysely<Database>, since: Date, limit: number) {
    return db
      .selectFrom("user_feedback")
      .select(["id", "organization_id", "project_id", "event_id"])
      .where("issue_id", "is", null)
      .where("event_id", "is not", null)
      .where("date_created", ">=", since)
      .orderBy("date_created", "desc")
      .limit(limit)
      .execute();
  }

  async link(db: Kysely<Database>, id: number, issueId: number): Promise<void> {
    await db.updateTable("user_feedback").set({ issue_id: issueId }).where("id", "=", id).execute();
  }
}

function columnsOf(input: FeedbackInput) {
  return {
    kind: input.kind,
    feedback_event_id: input.feedbackEventId,
    event_id: input.eventId,
    name: input.name,
    email: input.email,
    comments: input.comments,
    url: input.url,
    source: input.source,
    environment: input.environment,
    release: input.release,
    user: input.user === null ? null : JSON.stringify(input.user),
  };
}

export type FeedbackRow = NonNullable<Awaited<ReturnType<UserFeedbackRepository["find"]>>>;
