import { cut } from "./text.js";

/** Sentry's limits: longer keys and values are cut rather than rejected. */
const MAX_KEY_LENGTH = 32;
const MAX_VALUE_LENGTH = 200;

/** The fields every event is tagged with, so issues can be searched and counted by them. */
export interface DerivedTags {
  level: string;
  environment: string | null;
  release: string | null;
  /** `yes` / `no` from the exceptions' mechanisms (as Sentry tags events), null without a stated one. */
  handled?: string | null;
  /** The mechanism type of the main exception (`onunhandledrejection`, `generic`…), or null. */
  mechanism?: string | null;
}

/** The `handled` and `mechanism` tags Sentry derives from the exception chain (main exception last). */
export function mechanismTags(
  exceptions: ReadonlyArray<{ mechanism: { type: string | null; handled: boolean | null } | null }>,
): Pick<DerivedTags, "handled" | "mechanism"> {
  const stated = exceptions.flatMap((exception) =>
    exception.mechanism?.handled == null ? [] : [exception.mechanism.handled],
  );
  const handled = stated.length === 0 ? null : stated.includes(false) ? "no" : "yes";
  const mechanism = exceptions.findLast((exception) => exception.mechanism?.type)?.mechanism?.type ?? null;
  return { handled, mechanism };
}

/**
 * SDK tags (`{key: value}` or `[[key, value], …]`) as `[key, value]` string pairs sorted by key,
 * plus `level`, `environment`, `release` (and `handled`, `mechanism`) from the event's own fields: those win over an SDK
 * tag of the same name, so the `level` tag always agrees with the event's level. `defaults` (the
 * tags derived from request and contexts) apply only where the SDK sent no such tag. A key sent
 * twice keeps its last value. Pairs without a usable key or value are dropped, not rejected (Relay).
 */
export function normalizeTags(
  raw: unknown,
  derived: DerivedTags,
  defaults: Record<string, string | null> = {},
): Array<[string, string]> {
  const tags = new Map<string, string>();
  for (const [key, value] of Object.entries(defaults)) {
    const cleanValue = tagText(value, MAX_VALUE_LENGTH);
    if (cleanValue) tags.set(key, cleanValue);
  }
  for (const [key, value] of tagEntries(raw)) {
    const cleanKey = tagText(key, MAX_KEY_LENGTH);
    const cleanValue = tagText(value, MAX_VALUE_LENGTH);
    if (cleanKey && cleanValue) tags.set(cleanKey, cleanValue);
  }
  for (const [key, value] of Object.entries(derived)) if (value) tags.set(key, value);
  return [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function tagEntries(raw: unknown): Array<[unknown, unknown]> {
  if (Array.isArray(raw))
    return raw.filter((pair): pair is [unknown, unknown] => Array.isArray(pair) && pair.length === 2);
  if (typeof raw === "object" && raw !== null) return Object.entries(raw);
  return [];
}

/** Strings, numbers and booleans as text; tag values are one line (Sentry rejects newlines). */
function tagText(value: unknown, max: number): string | null {
  const text =
    typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : null;
  const oneLine = text?.replace(/[\r\n]+/g, " ").trim();
  return oneLine ? cut(oneLine, max) : null;
}
