import { randomUUID } from "node:crypto";
import type { EventProcessingError } from "./sanitize.js";
import type { EventLevel } from "./types.js";

/**
 * Event id, timestamp and level: never a reason to reject an event (Relay repairs them), so
 * each takes whatever was sent and returns a usable value.
 */

const HEX_ID = /^[0-9a-f]{32}$/;
const DASHED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** 32 lowercase hex characters; a dashed UUID is accepted; anything else gets a fresh id. */
export function normalizeEventId(value: unknown): string {
  if (typeof value === "string") {
    const id = value.trim().toLowerCase();
    if (HEX_ID.test(id)) return id;
    if (DASHED_UUID.test(id)) return id.replaceAll("-", "");
  }
  return randomUUID().replaceAll("-", "");
}

/** Relay's defaults: a client clock may run a minute ahead; events older than 30 days are not back-dated that far. */
const MAX_SECS_IN_FUTURE = 60;
const MAX_SECS_IN_PAST = 30 * 86_400;

export interface NormalizedTimestamp {
  timestamp: Date;
  /** Why the receive time was used instead of the client's time (Relay's error, for the event's `errors`). */
  error: EventProcessingError | null;
}

/**
 * The client's event time (seconds since the epoch, with a fraction, or an ISO 8601 string),
 * else the receive time. As Relay does, a time more than a minute in the future or more than 30
 * days in the past is a wrong client clock and becomes the receive time, recorded as a
 * `future_timestamp` / `past_timestamp` error; an unreadable one is an `invalid_data` error. So an
 * event time is always within PostgreSQL's range and never makes an issue "last seen" in the future.
 */
export function normalizeTimestamp(value: unknown, receivedAt: Date): NormalizedTimestamp {
  if (value === undefined || value === null || value === "") return { timestamp: receivedAt, error: null };
  const parsed = parseTimestamp(value);
  const sent = typeof value === "string" || typeof value === "number" ? value : undefined;
  const clamp = (type: EventProcessingError["type"], reason: string) => ({
    timestamp: receivedAt,
    error: { type, name: "timestamp", ...(sent === undefined ? {} : { value: sent }), reason },
  });
  if (parsed === null)
    return clamp("invalid_data", "not a number of seconds or an ISO 8601 date-time; the receive time is used");
  const drift = (parsed.getTime() - receivedAt.getTime()) / 1000;
  if (drift > MAX_SECS_IN_FUTURE)
    return clamp(
      "future_timestamp",
      `more than ${MAX_SECS_IN_FUTURE} seconds after the receive time, which is used instead`,
    );
  if (-drift > MAX_SECS_IN_PAST)
    return clamp("past_timestamp", "more than 30 days before the receive time, which is used instead");
  return { timestamp: parsed, error: null };
}

function parseTimestamp(value: unknown): Date | null {
  if (typeof value === "number") return validDate(value * 1000);
  if (typeof value !== "string" || value.trim() === "") return null;
  const trimmed = value.trim();
  // Some SDKs send the number of seconds as a string.
  if (/^\d+(\.\d+)?$/.test(trimmed)) return validDate(Number(trimmed) * 1000);
  // Relay reads a date-time without an offset as UTC; Date.parse would read it as local time.
  const hasTime = /\d:\d/.test(trimmed);
  const hasOffset = /(z|[+-]\d{2}(:?\d{2})?)$/i.test(trimmed);
  return validDate(Date.parse(hasTime && !hasOffset ? `${trimmed}Z` : trimmed));
}

function validDate(ms: number): Date | null {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A Map, not an object literal: a level like "constructor" must not find Object.prototype members. */
const LEVEL_ALIASES = new Map<string, EventLevel>([
  ["fatal", "fatal"],
  ["critical", "fatal"],
  ["error", "error"],
  ["warning", "warning"],
  ["warn", "warning"],
  ["info", "info"],
  ["log", "info"],
  ["debug", "debug"],
]);

/** Python's logging levels, which Relay also accepts as numbers. */
const PYTHON_LEVELS = new Map<number, EventLevel>([
  [10, "debug"],
  [20, "info"],
  [30, "warning"],
  [40, "error"],
  [50, "fatal"],
]);

/** Sentry's level names and their common aliases; anything unknown is an `error` (the default). */
export function normalizeLevel(value: unknown): EventLevel {
  if (typeof value === "number") return PYTHON_LEVELS.get(value) ?? "error";
  if (typeof value !== "string") return "error";
  return LEVEL_ALIASES.get(value.trim().toLowerCase()) ?? "error";
}
