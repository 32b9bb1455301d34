import type { SendResult } from "../../delivery/sender.js";

/** What a person can turn on or off: alert-rule notifications, and what happens to issues they follow. */
export type NotificationCategory = "alerts" | "workflow";
export const NOTIFICATION_CATEGORIES: readonly NotificationCategory[] = ["alerts", "workflow"];

/** Why a notification was sent. */
export type NotificationReason =
  "alert" | "incident" | "throttled" | "assigned" | "commented" | "regression" | "resolved" | "unsnoozed";

/** The issue a notification is about, as plain data (it is stored for digests). */
export interface NotificationIssue {
  id: number;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: string;
  count: number;
  userCount: number;
  firstSeen: string;
  lastSeen: string;
  project: { id: number; slug: string; name: string };
}

/** One frame of the top of a stack trace, innermost first. */
export interface NotificationFrame {
  function: string | null;
  file: string | null;
  line: number | null;
  inApp: boolean;
}

/** The event that caused an alert: where, which release, and the top of its stack trace. */
export interface NotificationEvent {
  eventId: string;
  message: string;
  environment: string | null;
  release: string | null;
  exception: { type: string; value: string } | null;
  frames: NotificationFrame[];
}

/**
 * What a notification is about when it is not an issue: a metric alert's incident, an organization
 * being throttled. The plugin that sends it says how it reads; every channel shows it the same way.
 */
export interface NotificationNotice {
  /** `Incident 3`, `Quota`. */
  label: string;
  /** `Critical: Error spike`. */
  title: string;
  /** `12 events in the last 5 minutes matching "level:error"`. */
  description: string;
  /** An event level (`fatal`, `error`, `warning`, `info`): its severity, for colours. */
  level: string;
  facts: Array<[string, string]>;
  /** When it happened (ISO 8601). */
  timestamp: string;
}

/** One thing to tell people, rendered by each channel in its own format. */
export interface Notification {
  organization: { id: number; slug: string };
  category: NotificationCategory;
  reason: NotificationReason;
  /** One line saying what happened: `Alert rule "Checkout errors" fired`, `Ada assigned this issue to you`. */
  headline: string;
  /** The issue it is about, or null with a `notice` instead. */
  issue: NotificationIssue | null;
  notice: NotificationNotice | null;
  event: NotificationEvent | null;
  /** The comment's text, for `commented`. */
  comment: string | null;
  /** The issue's (or the alert's) page in the dashboard (`notifications.dashboardUrl`), or null when none is configured. */
  link: string | null;
  /** The user who caused it: never told of their own action. */
  actorUserId: number | null;
}

/** A member of the organization, as a personal channel reaches them. */
export interface UserRecipient {
  kind: "user";
  userId: number;
  /** Their address on record (organization membership, SCIM), or null: no email is sent then. */
  email: string | null;
  name: string;
}

export const CHAT_PROVIDERS = ["slack", "discord", "teams", "json"] as const;
export type ChatProvider = (typeof CHAT_PROVIDERS)[number];

/** A chat room's incoming webhook, from an alert action. */
export interface ChatTarget {
  kind: "chat";
  provider: ChatProvider;
  webhookUrl: string;
  /** What the delivery log names as the destination (`issue-rule:12`). */
  destinationId: string;
}

export type NotificationTarget = UserRecipient | ChatTarget;

/** What a channel stores in the outbox for one recipient: the address and the exact body sent. */
export interface RenderedMessage {
  address: string;
  body: unknown;
}

/** A stored message, as a channel sends it (one attempt). */
export interface OutgoingMessage {
  /** The delivery id: stable across retries, so receivers can de-duplicate (an email's Message-ID). */
  id: string;
  address: string;
  /** The JSON the channel rendered, as stored. */
  body: string;
}

/**
 * A notification channel. Faultline's are email (`email`) and chat (`chat`); a host adds its own
 * (its mailer, push, an in-app inbox) through {@link NotifierRegistry.register}. What a channel
 * renders goes through the delivery outbox: durable, retried with backoff, in the delivery log,
 * never sent twice by two instances.
 */
export interface Notifier {
  /** The outbox destination type of its messages (`email`, `chat`, `acme-push`). */
  readonly channel: string;
  /**
   * `user`: reaches members (email, push, an inbox) — recipients come from alert actions and issue
   * subscriptions, and each user's settings and the throttle apply. `chat`: posts to the webhook
   * of a chat action.
   */
  readonly audience: "user" | "chat";
  /**
   * The message for one target: one notification, or several (a digest of what the throttle held
   * back). Null when this target cannot be reached on this channel (a user without an address).
   */
  render(
    notifications: readonly Notification[],
    target: NotificationTarget,
    context: { unsubscribeUrl: string | null },
  ): RenderedMessage | null;
  /**
   * One attempt. Absent: the body is POSTed as JSON to the address (an HTTP webhook, guarded
   * against private addresses like every delivery). The result speaks HTTP: 2xx delivered; 0
   * (nothing answered), 429 and 5xx retried on the delivery schedule; other codes given up.
   */
  send?(message: OutgoingMessage): Promise<SendResult>;
  /** How the delivery log shows an address, when it must not be shown whole (a webhook URL is a credential). */
  displayAddress?(address: string): string;
}
