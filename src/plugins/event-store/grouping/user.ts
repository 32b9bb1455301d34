import type { RawEvent } from "./raw-event.js";
import { optionalText } from "./text.js";
import type { EventUser } from "./types.js";

const USER_FIELDS = ["id", "email", "username", "ip_address", "name"] as const;
const MAX_USER_FIELD_LENGTH = 200;

/** `{{auto}}` asks the server to fill in the client IP, which this layer does not know. */
const AUTO_IP = /^\{\{\s*auto\s*\}\}$/i;

/** The user fields we keep, trimmed; null when none is left. */
export function normalizeUser(raw: RawEvent["user"]): EventUser | null {
  if (!raw) return null;
  const user: EventUser = {};
  for (const field of USER_FIELDS) {
    const value = optionalText(raw[field], MAX_USER_FIELD_LENGTH);
    if (value !== null && !(field === "ip_address" && AUTO_IP.test(value))) user[field] = value;
  }
  return Object.keys(user).length > 0 ? user : null;
}

/** The user field distinct users are counted by, with the prefix its key carries. */
const KEY_FIELDS = [
  ["id", "id"],
  ["email", "email"],
  ["username", "username"],
  ["ip_address", "ip"],
] as const;

/** Which field {@link userKeyOf} takes: the most stable identifier the SDK sent, or null. */
export function userKeyField(user: EventUser | null): (typeof KEY_FIELDS)[number] | null {
  return (user && KEY_FIELDS.find(([field]) => user[field])) || null;
}

/**
 * What distinct users are counted by: the most stable identifier the SDK sent, prefixed by its
 * kind so that a user id "42" and an IP address never count as the same user (Sentry's
 * `sentry:user` tag uses the same prefixes).
 */
export function userKeyOf(user: EventUser | null): string | null {
  const keyed = userKeyField(user);
  return keyed ? `${keyed[1]}:${user?.[keyed[0]]}` : null;
}
