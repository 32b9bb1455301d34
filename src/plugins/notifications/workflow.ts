import type { DependencyContainer } from "tsyringe";
import type { DomainEvent } from "../../events/event-bus.js";
import type { TransactionScope } from "../../db/transaction.js";
import type { PluginEventSubscriptions } from "../../plugin/plugin.js";
import { IssueSubscriptionsToken, type IssueSnapshot } from "../issues/index.js";
import type { Notification, NotificationReason, UserRecipient } from "./notifier.js";
import type { NotificationService } from "./service.js";
import { notificationIssue } from "./snapshot.js";
import { NotificationServiceToken } from "./tokens.js";

/** The user behind an event, or null (an app, a token without a user, the system). */
function actorUserId(event: DomainEvent): number | null {
  return event.actor.type === "user" && /^\d+$/.test(event.actor.id) ? Number(event.actor.id) : null;
}

async function workflowNotification(
  service: NotificationService,
  scope: TransactionScope,
  event: DomainEvent,
  issue: IssueSnapshot,
  reason: NotificationReason,
  headline: string,
  comment: string | null = null,
): Promise<Notification> {
  const organization = await service.organization(scope, event.organizationId);
  return {
    organization,
    category: "workflow",
    reason,
    headline,
    issue: notificationIssue(issue),
    notice: null,
    event: null,
    comment,
    link: service.dashboardLink(organization.slug, `issues/${issue.id}/`),
    actorUserId: actorUserId(event),
  };
}

/**
 * Personal workflow notifications (Sentry's "workflow" category): the assignee hears of the
 * assignment; an issue's subscribers hear of its regression, a resolution, a new comment and a
 * lifted snooze. Nobody is told of their own action. They run in the transaction of the change.
 */
export const workflowSubscriptions: PluginEventSubscriptions = {
  "issue.assigned": async (event, scope, { container }) => {
    const service = container.resolve(NotificationServiceToken);
    const { issue, assignee } = event.payload;
    const recipients: UserRecipient[] =
      assignee.type === "user"
        ? await service.recipients.users(scope.trx, event.organizationId, [Number(assignee.id)])
        : await service.recipients.team(scope.trx, event.organizationId, Number(assignee.id));
    const to = assignee.type === "user" ? "you" : `your team ${assignee.name}`;
    const notification = await workflowNotification(
      service,
      scope,
      event,
      issue,
      "assigned",
      `${event.actor.name} assigned ${issue.shortId} to ${to}`,
    );
    await service.toUsers(scope, notification, recipients);
  },
  "comment.created": async (event, scope, ctx) => {
    const { issue, comment } = event.payload;
    await toSubscribers(
      event,
      scope,
      ctx.container,
      issue,
      "commented",
      `${event.actor.name} commented on ${issue.shortId}`,
      comment.text,
    );
  },
  "issue.resolved": async (event, scope, ctx) => {
    const { issue } = event.payload;
    await toSubscribers(
      event,
      scope,
      ctx.container,
      issue,
      "resolved",
      `${event.actor.name} resolved ${issue.shortId}`,
    );
  },
  "issue.unresolved": async (event, scope, ctx) => {
    const { issue, reason } = event.payload;
    if (reason === "regression")
      await toSubscribers(
        event,
        scope,
        ctx.container,
        issue,
        "regression",
        `${issue.shortId} regressed: it happened again after it was resolved`,
      );
    else if (reason === "snooze_expired")
      await toSubscribers(
        event,
        scope,
        ctx.container,
        issue,
        "unsnoozed",
        `${issue.shortId} is back: its snooze ended`,
      );
  },
};

async function toSubscribers(
  event: DomainEvent,
  scope: TransactionScope,
  container: DependencyContainer,
  issue: IssueSnapshot,
  reason: NotificationReason,
  headline: string,
  comment: string | null = null,
): Promise<void> {
  const service = container.resolve(NotificationServiceToken);
  const subscribers = await container.resolve(IssueSubscriptionsToken).subscribers(scope.trx, issue.id);
  if (subscribers.length === 0) return;
  const recipients = await service.recipients.users(scope.trx, event.organizationId, subscribers);
  await service.toUsers(
    scope,
    await workflowNotification(service, scope, event, issue, reason, headline, comment),
    recipients,
  );
}
