import type { RawEvent, RawLogentry } from "./raw-event.js";

/** An event's log message: the template groups, the formatted text is shown and searched. */
export interface EventMessage {
  /** `logentry.message`, parameters not substituted (e.g. "User %s not found"), or null. */
  template: string | null;
  /** The text as read by people (e.g. "User 42 not found"), or null. */
  formatted: string | null;
}

/**
 * `logentry` wins over the legacy top-level `message` (Relay merges them the same way). The
 * formatted text is the one the SDK sent, else the template with its params substituted.
 */
export function resolveMessage(event: Pick<RawEvent, "logentry" | "message">): EventMessage {
  const entry = hasText(event.logentry) ? event.logentry : event.message;
  if (!entry || !hasText(entry)) return { template: null, formatted: null };
  const template = entry.message?.trim() ? entry.message : null;
  const formatted = entry.formatted?.trim()
    ? entry.formatted
    : template === null
      ? null
      : formatMessage(template, entry.params);
  return { template, formatted };
}

function hasText(entry: RawLogentry | null | undefined): entry is RawLogentry {
  return Boolean(entry?.message?.trim() || entry?.formatted?.trim());
}

/**
 * printf-style substitution as the SDKs use it: `%s` (and `%d`, `%i`, `%f`) take the next
 * positional param, `%(name)s` a named one, `%%` is a percent sign. A placeholder without a
 * param stays as written rather than failing the event.
 */
export function formatMessage(template: string, params: unknown): string {
  const positional = Array.isArray(params) ? params : [];
  const named =
    typeof params === "object" && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  let next = 0;
  return template.replace(/%%|%\(([^)]+)\)[sdif]|%[sdif]/g, (placeholder, name: string | undefined) => {
    if (placeholder === "%%") return "%";
    if (name !== undefined) return Object.hasOwn(named, name) ? paramText(named[name]) : placeholder;
    return next < positional.length ? paramText(positional[next++]) : placeholder;
  });
}

function paramText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}
