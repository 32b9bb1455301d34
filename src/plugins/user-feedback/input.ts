import { repairText } from "../../db/storable-text.js";
import type { FeedbackKind } from "./tables.js";

/**
 * How much of each field is kept (docs/user-feedback.md, "Limits"): longer text is cut, not
 * refused, as Relay and Sentry do with user reports (name 128, email 75 characters).
 */
export const FEEDBACK_LIMITS = {
  name: 128,
  email: 75,
  comments: 4096,
  url: 1000,
  source: 64,
  environment: 64,
  release: 250,
  userField: 128,
  /** A screenshot larger than this is dropped (counted `invalid`, reason `too_large`); the feedback is kept. */
  screenshotBytes: 2 * 1024 * 1024,
  /** Screenshots kept per feedback. */
  screenshots: 2,
} as const;

/** One report as it is stored, whatever way it came. */
export interface FeedbackInput {
  kind: FeedbackKind;
  feedbackEventId: string | null;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  source: string | null;
  environment: string | null;
  release: string | null;
  user: Record<string, string> | null;
}

/** Text cut to `max` characters (code points, so no surrogate pair is split), made storable. */
export function cut(value: unknown, max: number): string {
  if (typeof value !== "string") return "";
  const text = value.length > max ? Array.from(value).slice(0, max).join("") : value;
  return repairText(text);
}

const cutOrNull = (value: unknown, max: number) => (typeof value === "string" && value !== "" ? cut(value, max) : null);

const EVENT_ID = /^[0-9a-f]{32}$/;

/** An event id as SDKs send it (32 hex, or a UUID with dashes), in its stored form; null when it is not one. */
export function normalizeEventId(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const id = value.replaceAll("-", "").toLowerCase();
  return EVENT_ID.test(id) ? id : null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The event's `user`: its string fields only, each cut. */
function userOf(value: unknown): Record<string, string> | null {
  if (!isObject(value)) return null;
  const user: Record<string, string> = {};
  for (const key of ["id", "email", "username", "name", "ip_address"]) {
    const field = value[key];
    if (typeof field === "string" || typeof field === "number")
      user[key] = cut(String(field), FEEDBACK_LIMITS.userField);
  }
  return Object.keys(user).length > 0 ? user : null;
}

/**
 * A `feedback` item (the JS SDK's widget and `captureFeedback`): an event whose
 * `contexts.feedback` holds the message. Null when it has no message: that item is invalid.
 */
export function feedbackFromEvent(event: unknown): FeedbackInput | null {
  if (!isObject(event) || !isObject(event.contexts) || !isObject(event.contexts.feedback)) return null;
  const feedback = event.contexts.feedback;
  if (typeof feedback.message !== "string" || feedback.message.trim() === "") return null;
  const user = userOf(event.user);
  return {
    kind: "feedback",
    feedbackEventId: normalizeEventId(event.event_id),
    eventId: normalizeEventId(feedback.associated_event_id),
    name: cut(feedback.name ?? user?.name ?? user?.username ?? "", FEEDBACK_LIMITS.name),
    email: cut(feedback.contact_email ?? user?.email ?? "", FEEDBACK_LIMITS.email),
    comments: cut(feedback.message, FEEDBACK_LIMITS.comments),
    url: cutOrNull(feedback.url, FEEDBACK_LIMITS.url),
    source: cutOrNull(feedback.source, FEEDBACK_LIMITS.source),
    environment: cutOrNull(event.environment, FEEDBACK_LIMITS.environment),
    release: cutOrNull(event.release, FEEDBACK_LIMITS.release),
    user,
  };
}

/**
 * A legacy user report (`user_report` item, `POST …/user-feedback/`): `{event_id, name, email,
 * comments}`. Null when the event id or the comments are missing: Sentry requires both.
 */
export function feedbackFromReport(report: unknown): FeedbackInput | null {
  if (!isObject(report)) return null;
  const eventId = normalizeEventId(report.event_id);
  if (eventId === null || typeof report.comments !== "string" || report.comments.trim() === "") return null;
  return {
    kind: "user_report",
    feedbackEventId: null,
    eventId,
    name: cut(report.name, FEEDBACK_LIMITS.name),
    email: cut(report.email, FEEDBACK_LIMITS.email),
    comments: cut(report.comments, FEEDBACK_LIMITS.comments),
    url: null,
    source: null,
    environment: null,
    release: null,
    user: null,
  };
}
