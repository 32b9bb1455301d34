import type { DomainEvent } from "../../events/event-bus.js";
import { isoDate } from "../../http/format.js";
import type { PluginEventHandler } from "../../plugin/plugin.js";
import { AppWebhookDispatcherToken } from "../webhooks/index.js";

/** `data` of a `feedback.created` app webhook. */
function feedbackData(event: DomainEvent<"feedback.created">) {
  const { feedback } = event.payload;
  return {
    feedback: {
      id: String(feedback.id),
      kind: feedback.kind,
      eventID: feedback.eventId,
      issueId: feedback.issueId === null ? null : String(feedback.issueId),
      name: feedback.name,
      email: feedback.email,
      comments: feedback.comments,
      url: feedback.url,
      source: feedback.source,
      dateCreated: isoDate(feedback.dateCreated),
      project: { id: String(feedback.project.id), slug: feedback.project.slug, name: feedback.project.name },
    },
  };
}

/** `feedback.created` to the apps subscribed to the `feedback` category (docs/webhooks.md). */
export const sendFeedbackWebhook: PluginEventHandler<"feedback.created"> = (event, scope, { container }) =>
  container.resolve(AppWebhookDispatcherToken).dispatch(scope, {
    organizationId: event.organizationId,
    category: "feedback",
    eventType: event.name,
    actor: event.actor,
    data: () => feedbackData(event),
  });
