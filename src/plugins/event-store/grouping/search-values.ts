import type { ExceptionInfo } from "./exceptions.js";
import type { RawEvent } from "./raw-event.js";
import { cut } from "./text.js";
import type { EventUser } from "./types.js";
import { userKeyField } from "./user.js";

/** As tag values: longer ones are cut, not rejected. */
const MAX_VALUE_LENGTH = 200;

/**
 * The event fields issue search reads beside tags (`user.email:`, `error.type:`; the list is the
 * issues plugin's search/keys.ts EVENT_FIELDS), as `[field, value]` pairs without duplicates. The
 * user field the event's user is counted by (its `userKey`, `id:42`) is left out: the issue's
 * users already hold it, and search reads them there.
 */
export function eventSearchValues(
  user: EventUser | null,
  exceptions: readonly ExceptionInfo[],
): Array<[string, string]> {
  const pairs = new Map<string, [string, string]>();
  const add = (field: string, value: string | null | undefined) => {
    const text = value?.replace(/[\r\n]+/g, " ").trim();
    if (text) pairs.set(`${field}\0${text}`, [field, cut(text, MAX_VALUE_LENGTH)]);
  };
  const keyed = userKeyField(user)?.[0];
  if (keyed !== "id") add("user.id", user?.id);
  if (keyed !== "email") add("user.email", user?.email);
  if (keyed !== "username") add("user.username", user?.username);
  if (keyed !== "ip_address") add("user.ip", user?.ip_address);
  for (const exception of exceptions) {
    add("error.type", exception.type);
    add("error.value", exception.value);
  }
  return [...pairs.values()];
}

/**
 * The tags Sentry derives from an event's request, logger and contexts (`url`, `browser.name`…).
 * They are defaults: a tag the SDK sent under the same key wins.
 */
export function contextTags(event: RawEvent, userKey: string | null): Record<string, string | null> {
  const contexts = isObject(event.contexts) ? event.contexts : {};
  const browser = nameAndVersion(contexts.browser);
  const os = nameAndVersion(contexts.os);
  const runtime = nameAndVersion(contexts.runtime);
  return {
    url: urlWithoutQuery(event.request?.url),
    logger: event.logger ?? null,
    transaction: event.transaction ?? null,
    server_name: event.server_name ?? null,
    user: userKey,
    browser: browser.full,
    "browser.name": browser.name,
    os: os.full,
    "os.name": os.name,
    runtime: runtime.full,
    "runtime.name": runtime.name,
    device: isObject(contexts.device) ? stringOf(contexts.device.model) : null,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const stringOf = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

/** `{name: "Chrome", version: "120.0"}` → name `Chrome`, full `Chrome 120.0` (Sentry's tag values). */
function nameAndVersion(context: unknown): { name: string | null; full: string | null } {
  if (!isObject(context)) return { name: null, full: null };
  const name = stringOf(context.name);
  const version = stringOf(context.version);
  return { name, full: name && version ? `${name} ${version}` : name };
}

/** Sentry tags the request URL without its query string and fragment (they may hold secrets). */
function urlWithoutQuery(url: string | undefined): string | null {
  const text = url?.trim();
  if (!text) return null;
  return text.replace(/[?#].*$/s, "") || null;
}
