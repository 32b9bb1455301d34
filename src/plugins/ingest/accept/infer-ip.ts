import { isIP } from "node:net";
import type { RawEvent } from "./event-payload.js";

/**
 * Sentry's IP inference (Relay's `normalize_ip_addresses`), applied at accept time with the
 * address the request came from:
 * - `user.ip_address: "{{auto}}"` becomes the sender's address; with `sdk.settings.infer_ip:
 *   "never"`, or when the address is unknown, it is removed (a literal `{{auto}}` is no address);
 * - with `infer_ip: "auto"` a user without an address gets the sender's (so does an event of the
 *   platforms Relay's legacy mode infers for — javascript, cocoa, objc — without `infer_ip`).
 */

/** As grouping reads it (grouping/user.ts): spaces and case do not matter. */
const AUTO = /^\{\{\s*auto\s*\}\}$/i;
const LEGACY_INFER_PLATFORMS = new Set(["javascript", "cocoa", "objc"]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) is 1.2.3.4; anything not an IP is unknown. */
export function normalizeAddress(address: string | null | undefined): string | null {
  if (!address) return null;
  const trimmed = address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return isIP(trimmed) === 0 ? null : trimmed;
}

function inferMode(event: RawEvent): "auto" | "never" | "legacy" {
  const settings = isObject(event.sdk) && isObject(event.sdk.settings) ? event.sdk.settings : null;
  const mode = settings?.infer_ip;
  return mode === "auto" || mode === "never" ? mode : "legacy";
}

/** The event with its user's address inferred; the same object when there is nothing to do. */
export function inferUserIp(event: RawEvent, clientAddress: string | null): RawEvent {
  const mode = inferMode(event);
  const user = isObject(event.user) ? event.user : null;
  const stated = user?.ip_address;
  if (typeof stated === "string" && AUTO.test(stated)) {
    const { ip_address: _auto, ...rest } = user as Json;
    return { ...event, user: mode !== "never" && clientAddress ? { ...rest, ip_address: clientAddress } : rest };
  }
  if (stated !== undefined && stated !== null) return event;
  const infer =
    mode === "auto" ||
    (mode === "legacy" && typeof event.platform === "string" && LEGACY_INFER_PLATFORMS.has(event.platform));
  if (!infer || !clientAddress) return event;
  return { ...event, user: { ...(user ?? {}), ip_address: clientAddress } };
}
