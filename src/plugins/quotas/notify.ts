import type { TransactionScope } from "../../db/transaction.js";
import type { DomainEvent } from "../../events/event-bus.js";
import type { Notification, NotificationService } from "../notifications/index.js";

/** Who hears that an organization is throttled: the members who can change its plan or quotas. */
const TOLD_ROLES = ["owner", "manager"] as const;

/**
 * Tells the organization's owners and managers, by their personal channels, that it started being
 * refused events (once per throttling episode: the event is emitted once). An alert, so the
 * "alerts" setting turns it off.
 */
export async function notifyThrottled(
  event: DomainEvent<"organization.throttled">,
  scope: TransactionScope,
  notifications: NotificationService,
): Promise<void> {
  const { reason, period, limit, windowEnd } = event.payload;
  const organization = await notifications.organization(scope, event.organizationId);
  const what =
    reason === "spike_protection"
      ? `spike protection holds it to ${limit} events this hour`
      : `its ${period === "hour" ? "hourly" : "monthly"} quota of ${limit} events is spent`;
  const notification: Notification = {
    organization,
    category: "alerts",
    reason: "throttled",
    headline: `${organization.slug} is refusing events: ${what}`,
    issue: null,
    notice: {
      label: "Quota",
      title: `Events refused: ${what}`,
      description: `SDKs are told to back off; events are accepted again from ${windowEnd.toISOString()}.`,
      level: "warning",
      facts: [
        ["Reason", reason === "spike_protection" ? "spike protection" : "quota spent"],
        ["Limit", `${limit} events per ${period}`],
        ["Until", windowEnd.toISOString()],
      ],
      timestamp: event.occurredAt.toISOString(),
    },
    event: null,
    comment: null,
    link: notifications.dashboardLink(organization.slug),
    actorUserId: null,
  };
  const recipients = await notifications.recipients.withRoles(scope.trx, event.organizationId, TOLD_ROLES);
  await notifications.toUsers(scope, notification, recipients);
}
