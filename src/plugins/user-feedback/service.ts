import type { Kysely } from "kysely";
import type { Clock } from "../../clock.js";
import type { Database } from "../../db/schema.js";
import { runInTransaction, type TransactionScope } from "../../db/transaction.js";
import { type EventBus, SYSTEM_ACTOR } from "../../events/event-bus.js";
import { scrubEvent, type ScrubbingSettings } from "../data-scrubbing/index.js";
import type { EventReads, ProjectRef } from "../event-store/index.js";
import type { FeedbackSnapshot } from "./domain-events.js";
import { cut, FEEDBACK_LIMITS, type FeedbackInput } from "./input.js";
import type { ScreenshotInput, UserFeedbackRepository } from "./repository.js";

/** How long a legacy report may be corrected by sending it again (Sentry's rule); later, it is a conflict. */
const REPORT_REPLACEABLE_MS = 5 * 60_000;

export type SubmitResult =
  | { status: "created" | "replaced"; id: number }
  /** The same `feedback` item was kept before (an SDK's retry). */
  | { status: "duplicate" }
  /** A report of this event was kept more than five minutes ago: it is not replaced. */
  | { status: "conflict" };

/** Where a report goes: the project, as the DSN key or the API path resolved it. */
export type FeedbackTarget = Pick<ProjectRef, "id" | "organizationId">;

/** Keeps user feedback, linked to its event's issue when the event is stored (docs/user-feedback.md). */
export class UserFeedbackService {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly repository: UserFeedbackRepository,
    private readonly events: () => Pick<EventReads, "findProjectEvent">,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly scrubbing: { forProject(projectId: number): Promise<ScrubbingSettings> },
  ) {}

  async submit(
    project: FeedbackTarget,
    raw: FeedbackInput,
    screenshots: readonly ScreenshotInput[] = [],
  ): Promise<SubmitResult> {
    const input = scrubbed(raw, await this.scrubbing.forProject(project.id));
    // Read before the transaction: an embedded database has one connection, which the transaction holds.
    const issueId = await this.issueOf(project, input.eventId);
    const now = this.clock.now();
    return runInTransaction(this.db(), async (scope) => {
      if (input.kind === "user_report" && input.eventId !== null) {
        const existing = await this.repository.findReport(scope.trx, project.id, input.eventId);
        if (existing) {
          if (now.getTime() - existing.date_created.getTime() > REPORT_REPLACEABLE_MS) return { status: "conflict" };
          await this.repository.replace(scope.trx, Number(existing.id), issueId, input);
          return { status: "replaced", id: Number(existing.id) };
        }
      }
      const target = { organizationId: project.organizationId, projectId: project.id, issueId, now };
      const id = await this.repository.insert(scope.trx, target, input);
      if (id === null) return input.kind === "feedback" ? { status: "duplicate" } : { status: "conflict" };
      await this.repository.addScreenshots(scope.trx, project.organizationId, id, screenshots);
      await this.announce(scope, project, { id, issueId, now }, input);
      return { status: "created", id };
    });
  }

  /**
   * Links reports received since `since` whose event has been stored since they came: the lazy
   * half of linking (docs/user-feedback.md, "Linking"). Returns how many were looked at.
   */
  async linkPending(since: Date, limit: number): Promise<{ examined: number; linked: number }> {
    const pending = await this.repository.unlinked(this.db(), since, limit);
    let linked = 0;
    for (const row of pending) {
      const issueId = await this.issueOf({ id: row.project_id, organizationId: row.organization_id }, row.event_id);
      if (issueId === null) continue;
      await this.repository.link(this.db(), Number(row.id), issueId);
      linked += 1;
    }
    return { examined: pending.length, linked };
  }

  /** The issue of the event a report names, when that event is stored; null otherwise. */
  private async issueOf(project: FeedbackTarget, eventId: string | null): Promise<number | null> {
    if (eventId === null) return null;
    const event = await this.events().findProjectEvent(project.organizationId, project.id, eventId);
    return event ? Number(event.issue_id) : null;
  }

  private async announce(
    scope: TransactionScope,
    project: FeedbackTarget,
    kept: { id: number; issueId: number | null; now: Date },
    input: FeedbackInput,
  ): Promise<void> {
    const row = await scope.trx
      .selectFrom("projects")
      .select(["id", "slug", "name"])
      .where("id", "=", project.id)
      .executeTakeFirstOrThrow();
    const feedback: FeedbackSnapshot = {
      id: kept.id,
      kind: input.kind,
      eventId: input.eventId,
      issueId: kept.issueId,
      name: input.name,
      email: input.email,
      comments: input.comments,
      url: input.url,
      source: input.source,
      dateCreated: kept.now,
      project: row,
    };
    await this.bus.emit(scope, {
      name: "feedback.created",
      organizationId: project.organizationId,
      actor: SYSTEM_ACTOR,
      occurredAt: kept.now,
      payload: { feedback },
    });
  }
}

/**
 * The report with the project's data scrubbing applied (docs/data-scrubbing.md) to what may hold
 * a secret: the message, the page's URL and the user. The name and email are what a report is
 * for, and stay (as Sentry keeps them).
 */
function scrubbed(input: FeedbackInput, settings: ScrubbingSettings): FeedbackInput {
  const shape = { user: input.user ?? undefined, contexts: { feedback: { message: input.comments, url: input.url } } };
  const { event, changed } = scrubEvent(shape, settings);
  if (!changed) return input;
  const result = event as typeof shape;
  const user = result.user
    ? Object.fromEntries(
        Object.entries(result.user).map(([key, value]) => [key, cut(String(value), FEEDBACK_LIMITS.userField)]),
      )
    : null;
  return {
    ...input,
    comments: cut(String(result.contexts.feedback.message ?? ""), FEEDBACK_LIMITS.comments),
    url: result.contexts.feedback.url === null ? null : cut(String(result.contexts.feedback.url), FEEDBACK_LIMITS.url),
    user: user && Object.keys(user).length > 0 ? user : null,
  };
}
