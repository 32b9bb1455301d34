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

/**
 * What distinct users are counted by: the most stable identifier the SDK sent, prefixed by its
 * kind so that a user id "42" and an IP address never count as the same user (Sentry's
 * `sentry:user` tag uses the same prefixes).
 */
export function userKeyOf(user: EventUser | null): string | null {
  if (!user) return null;
  if (user.id) return `id:${user.id}`;
  if (user.email) return `email:${user.email}`;
  if (user.username) return `username:${user.username}`;
  if (user.ip_address) return `ip:${user.ip_address}`;
  return null;
}
