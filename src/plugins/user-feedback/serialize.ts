import { idString, isoDate } from "../../http/format.js";
import type { IssueSummary } from "../issues/index.js";
import type { FeedbackRow } from "./repository.js";

export interface ScreenshotRow {
  id: string | number;
  feedback_id: string | number;
  name: string;
  content_type: string;
  size: number;
}

/** What serializing a page of feedback needs besides the rows, loaded once per page. */
export interface FeedbackRelated {
  issues: Map<number, IssueSummary>;
  screenshots: readonly ScreenshotRow[];
}

/** Sentry's `user` of a report: the event's user, or null when the SDK sent none. */
function userOf(user: Record<string, unknown> | null) {
  if (!user) return null;
  const field = (key: string) => (typeof user[key] === "string" ? (user[key] as string) : null);
  return {
    id: field("id"),
    username: field("username"),
    email: field("email"),
    name: field("name"),
    ipAddress: field("ip_address"),
  };
}

/**
 * Sentry's user report shape (`UserReportWithGroupSerializer`): `{id, eventID, name, email,
 * comments, dateCreated, user, event: {id, eventID}, issue}`, plus Faultline's `kind`, `url`,
 * `source`, `environment`, `release` and the screenshots. `issue` is a summary, null until the
 * event is stored. A widget feedback that names no event has its own event id as `eventID`.
 */
export function serializeFeedback(row: FeedbackRow, related: FeedbackRelated) {
  const eventId = row.event_id ?? row.feedback_event_id ?? "";
  const issue = row.issue_id === null ? undefined : related.issues.get(Number(row.issue_id));
  return {
    id: idString(row.id),
    eventID: eventId,
    name: row.name,
    email: row.email,
    comments: row.comments,
    dateCreated: isoDate(row.date_created),
    user: userOf(row.user),
    event: { id: eventId, eventID: eventId },
    issue: issue ?? null,
    kind: row.kind,
    url: row.url,
    source: row.source,
    environment: row.environment,
    release: row.release,
    attachments: related.screenshots
      .filter((screenshot) => String(screenshot.feedback_id) === String(row.id))
      .map((screenshot) => ({
        id: idString(screenshot.id),
        name: screenshot.name,
        mimetype: screenshot.content_type,
        size: screenshot.size,
      })),
  };
}

export type SerializedFeedback = ReturnType<typeof serializeFeedback>;
