export type EventLevel = "fatal" | "error" | "warning" | "info" | "debug";

/** The event user as stored (Sentry's user interface, the subset we keep). */
export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
  name?: string;
}

/**
 * An event after normalisation and grouping: everything ingestion writes, derived once.
 * `payload` is the event as the SDK sent it (served by `/events/{id}/json/`).
 */
export interface NormalizedEvent {
  /** 32 lowercase hex characters (generated when the SDK sent none). */
  eventId: string;
  /** Event time: the client timestamp, else the receive time. */
  timestamp: Date;
  received: Date;
  level: EventLevel;
  platform: string | null;
  environment: string | null;
  release: string | null;
  dist: string | null;
  /** `error` when the event has an exception, else `default`. */
  type: "error" | "default";
  title: string;
  culprit: string;
  /** Searchable text: the formatted message, or the exception values. */
  message: string;
  /** Filename of the crashing frame, or null. */
  location: string | null;
  /** `{type, value, filename, function}` for errors, `{title}` for messages. */
  metadata: Record<string, unknown>;
  /** SDK tags plus `level`, `environment`, `release` (when set), as pairs, sorted by key. */
  tags: Array<[string, string]>;
  /**
   * `[field, value]` pairs issue search reads beside tags (`user.email`, `error.type`…). Optional:
   * events queued before it existed have none.
   */
  searchValues?: Array<[string, string]>;
  user: EventUser | null;
  /** What distinct users are counted by: user.id, else email, username, ip_address. */
  userKey: string | null;
  /** MD5 hex grouping hashes; the first one is the primary hash. */
  hashes: string[];
  payload: Record<string, unknown>;
  /** Size of the event JSON in bytes. */
  size: number;
}
