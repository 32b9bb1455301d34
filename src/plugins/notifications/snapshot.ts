import type { EventSnapshot, IssueSnapshot } from "../issues/index.js";
import type { NotificationEvent, NotificationFrame, NotificationIssue } from "./notifier.js";

const TOP_FRAMES = 5;

/** The issue part of a notification, as plain data. */
export function notificationIssue(issue: IssueSnapshot): NotificationIssue {
  return {
    id: issue.id,
    shortId: issue.shortId,
    title: issue.title,
    culprit: issue.culprit,
    level: issue.level,
    status: issue.status,
    count: issue.count,
    userCount: issue.userCount,
    firstSeen: issue.firstSeen.toISOString(),
    lastSeen: issue.lastSeen.toISOString(),
    project: { id: issue.project.id, slug: issue.project.slug, name: issue.project.name },
  };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** The event part: the last (outermost raised) exception and the top of its stack, innermost frame first. */
export function notificationEvent(event: EventSnapshot): NotificationEvent {
  const values = isObject(event.payload.exception) ? event.payload.exception.values : undefined;
  const last = Array.isArray(values) ? values.filter(isObject).at(-1) : undefined;
  const rawFrames = last && isObject(last.stacktrace) ? last.stacktrace.frames : undefined;
  const frames: NotificationFrame[] = (Array.isArray(rawFrames) ? rawFrames.filter(isObject) : [])
    .slice(-TOP_FRAMES)
    .reverse()
    .map((frame) => ({
      function: text(frame.function),
      file: text(frame.filename) ?? text(frame.abs_path) ?? text(frame.module),
      line: typeof frame.lineno === "number" ? frame.lineno : null,
      inApp: frame.in_app !== false,
    }));
  return {
    eventId: event.eventId,
    message: event.message || event.title,
    environment: event.environment,
    release: event.release,
    exception: last ? { type: text(last.type) ?? "Error", value: text(last.value) ?? "" } : null,
    frames,
  };
}
