import type { EventSnapshot, IssueSnapshot } from "../issues/index.js";

/** ISO 8601 with microseconds, as the seed shows for `event.datetime`. */
export function isoMicroseconds(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export interface EventAlertInput {
  deliveryId: string;
  issue: IssueSnapshot;
  event: EventSnapshot;
  issueUrl: string;
  /** Names of the rules that fired; empty for `event.created`. */
  triggeringRules: string[];
}

/** The seed's `event.alert` payload (also the shape of `event.created`, with no rules). */
export function eventAlertPayload({ deliveryId, issue, event, issueUrl, triggeringRules }: EventAlertInput) {
  return {
    id: deliveryId,
    project: issue.project.slug,
    project_name: issue.project.name,
    culprit: event.culprit,
    url: issueUrl,
    message: event.message || event.title,
    triggering_rules: triggeringRules,
    event: {
      event_id: event.eventId,
      level: event.level,
      tags: event.tags.map(([key, value]) => [key, value]),
      platform: event.platform,
      datetime: isoMicroseconds(event.timestamp),
    },
  };
}
