import type { TransactionScope } from "../../../db/transaction.js";
import type { Actor } from "../../../events/event-bus.js";
import type { EventWrites, ProjectRef } from "../../event-store/index.js";
import type { IssueWorkflow } from "../workflow/service.js";

/** What a feature reports as an issue: an event of its own making, grouped by its fingerprint. */
export interface ReportedEvent {
  /** Fixed by the feature (`["monitor", slug, environment]`): every report of one problem is one issue. */
  fingerprint: string[];
  /** The issue's title. */
  message: string;
  level: "fatal" | "error" | "warning" | "info";
  tags: Record<string, string>;
  environment?: string;
  /** Extra context shown on the event (`{ monitor: {…} }`). */
  contexts?: Record<string, Record<string, unknown>>;
  timestamp: Date;
}

/**
 * Issues raised by a feature rather than by an SDK (a failing cron monitor): the event goes
 * through the event store's write path in the caller's transaction, so the issue is created (or
 * regressed), counted, searched, alerted on and notified like any other; a recovery resolves it
 * through the workflow, with its activity and `issue.resolved`.
 */
export class IssueReporter {
  constructor(
    private readonly writes: () => EventWrites,
    private readonly workflow: () => IssueWorkflow,
  ) {}

  /** Stores the event in the caller's transaction; the id of the issue it joined, and its event id. */
  async report(
    scope: TransactionScope,
    project: ProjectRef,
    event: ReportedEvent,
  ): Promise<{ issueId: number; eventId: string }> {
    const raw = {
      level: event.level,
      message: event.message,
      fingerprint: event.fingerprint,
      tags: event.tags,
      environment: event.environment,
      contexts: event.contexts,
      platform: "other",
      timestamp: event.timestamp.getTime() / 1000,
    };
    const normalized = this.writes().normalize(raw, { receivedAt: event.timestamp });
    await this.writes().storeBatch(scope, [{ project, event: normalized }]);
    const hash = await scope.trx
      .selectFrom("issue_hashes")
      .select("issue_id")
      .where("project_id", "=", project.id)
      .where("hash", "=", normalized.hashes[0] as string)
      .executeTakeFirstOrThrow();
    return { issueId: Number(hash.issue_id), eventId: normalized.eventId };
  }

  /** Resolves the issue (false when it is gone or no longer unresolved), in the caller's transaction. */
  resolve(scope: TransactionScope, organizationId: number, issueId: number, actor: Actor): Promise<boolean> {
    return this.workflow().resolveAs(scope, organizationId, issueId, actor);
  }
}
