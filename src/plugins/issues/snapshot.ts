import type { EventSnapshot, IssueSnapshot, ProjectSnapshot } from "./domain-events.js";
import type { NormalizedEvent } from "../event-store/index.js";
import { formatShortId } from "./short-id.js";
import type { IssueState } from "./state.js";

export function issueSnapshot(state: IssueState, project: ProjectSnapshot): IssueSnapshot {
  return {
    id: state.id,
    shortId: formatShortId(project.slug, state.shortNumber),
    title: state.title,
    culprit: state.culprit,
    level: state.level,
    status: state.status,
    substatus: state.substatus,
    statusDetails: { ...state.statusDetails },
    type: state.type,
    platform: state.platform,
    metadata: state.metadata,
    firstSeen: state.firstSeen,
    lastSeen: state.lastSeen,
    count: state.timesSeen,
    userCount: state.userCount,
    project,
  };
}

export function eventSnapshot(event: NormalizedEvent, issueId: number): EventSnapshot {
  return {
    eventId: event.eventId,
    issueId,
    title: event.title,
    culprit: event.culprit,
    message: event.message,
    level: event.level,
    platform: event.platform,
    environment: event.environment,
    release: event.release,
    timestamp: event.timestamp,
    received: event.received,
    tags: event.tags,
    user: event.user,
    location: event.location,
    metadata: event.metadata,
    payload: event.payload,
  };
}
