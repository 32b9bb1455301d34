import {
  type AssigneeRef,
  type Comparison,
  type DateValue,
  IS_VALUES,
  type IsValue,
  type Level,
  LEVELS,
  type SearchFilter,
  type SearchQuery,
  type SearchTerm,
  type UserRef,
} from "./ast.js";
import { searchError } from "./errors.js";
import { type EventField, type SearchKeyDefinition, searchKey } from "./keys.js";
import { type RawToken, type RawValue, tokenize } from "./tokenizer.js";

export { searchError } from "./errors.js";

const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses an issue search query (Sentry's syntax, keys in keys.ts) into typed terms. Anything it
 * cannot make sense of is a 400 `Error parsing search query: <why>` rather than a silently ignored
 * token. A key that is neither built in nor `tags[…]` is taken for a tag; whether any event has
 * that tag is checked against the database (known-keys.ts), so a typo is a 400 too.
 */
export function parseSearchQuery(input: string): SearchQuery {
  return { terms: tokenize(input).map(toTerm) };
}

/** `me`, `none`, `my_teams`, `#team-slug`, or a user (username, email, id) or team name. */
export function parseAssigneeRef(value: string): AssigneeRef {
  const lowered = value.toLowerCase();
  if (lowered === "me" || lowered === "none" || lowered === "my_teams") return { kind: lowered };
  if (value.startsWith("#")) {
    if (value.length === 1) throw searchError('missing team slug after "#"');
    return { kind: "team", slug: value.slice(1) };
  }
  return { kind: "user", ref: value };
}

function toTerm(token: RawToken): SearchTerm {
  if (token.kind === "text") return { type: "text", text: token.text };
  const { key, value, negated } = token;
  const definition = searchKey(key);
  if (value.kind === "bare" && value.text === "") {
    if (definition || isExplicitTag(key)) throw searchError(`missing value for "${key}:"`);
    // `TypeError:` in a pasted message is a word, not a filter without a value.
    return { type: "text", text: `${negated ? "!" : ""}${key}:` };
  }
  if (value.kind === "quoted" && value.text === "") throw searchError(`empty value for "${key}:"`);
  const filter = definition ? builtInFilter(definition, key, value) : tagFilter(key, value);
  return { ...filter, negated };
}

function builtInFilter(definition: SearchKeyDefinition, written: string, value: RawValue): SearchFilter {
  const key = definition.key;
  switch (definition.kind) {
    case "is":
      return { type: "is", values: valuesOf(value).map(isValue) };
    case "assigned":
      return { type: "assigned", values: valuesOf(value).map(parseAssigneeRef) };
    case "user-flag":
      return { type: key as "bookmarks" | "subscribed", values: valuesOf(value).map(userRef) };
    case "level":
      return { type: "level", values: valuesOf(value).map(level) };
    case "facet":
      return { type: key as "environment" | "release", values: valuesOf(value) };
    case "first-release":
      return { type: "firstRelease", values: valuesOf(value) };
    case "date":
      return {
        type: "date",
        field: key as "firstSeen" | "lastSeen",
        ...dateComparison(single(value, written), written),
      };
    case "count":
      return {
        type: "count",
        field: key as "timesSeen" | "userCount",
        ...countComparison(single(value, written), written),
      };
    case "has":
      return { type: "has", keys: valuesOf(value).map(hasKey) };
    case "message":
      return { type: "message", values: valuesOf(value) };
    case "event-field":
      return { type: "field", field: key as EventField, values: valuesOf(value) };
    case "handled": {
      const yes = booleanValue(single(value, written), written);
      return { type: "handled", handled: key === "error.handled" ? yes : !yes };
    }
    case "derived-tag":
      return { type: "tag", key, values: valuesOf(value), known: true };
  }
}

function tagFilter(written: string, value: RawValue): SearchFilter {
  return { type: "tag", key: tagKey(written), values: valuesOf(value), known: isExplicitTag(written) };
}

const valuesOf = (value: RawValue): string[] => (value.kind === "list" ? value.items : [value.text]);

function single(value: RawValue, key: string): string {
  if (value.kind === "list") throw searchError(`"${key}:" does not take a list`);
  return value.text;
}

function isValue(value: string): IsValue {
  const lowered = value.toLowerCase();
  if (lowered === "archived") return "ignored";
  if ((IS_VALUES as readonly string[]).includes(lowered)) return lowered as IsValue;
  throw searchError(`unknown value "${value}" for "is:" (expected one of ${[...IS_VALUES, "archived"].join(", ")})`);
}

function level(value: string): Level {
  const lowered = value.toLowerCase();
  if ((LEVELS as readonly string[]).includes(lowered)) return lowered as Level;
  throw searchError(`unknown level "${value}" (expected one of ${LEVELS.join(", ")})`);
}

function userRef(value: string): UserRef {
  return value.toLowerCase() === "me" ? { kind: "me" } : { kind: "user", ref: value };
}

const isExplicitTag = (key: string) => /^tags\[.+\]$/.test(key);

/** `tags[sentry:user]` → `sentry:user`; a plain key stays as it is. */
function tagKey(key: string): string {
  return isExplicitTag(key) ? key.slice(5, -1) : key;
}

/** `has:` names a tag or an event field; an alias (`user.ip_address`) names what its key does. */
function hasKey(written: string): string {
  const definition = searchKey(written);
  // Environment, release and level are tags of every event too.
  if (definition && ["event-field", "derived-tag", "facet", "level"].includes(definition.kind)) return definition.key;
  if (definition) throw searchError(`"has:${written}" is not supported (has: takes a tag or an event field)`);
  return tagKey(written);
}

function booleanValue(text: string, key: string): boolean {
  const lowered = text.toLowerCase();
  if (lowered === "true" || lowered === "1" || lowered === "yes") return true;
  if (lowered === "false" || lowered === "0" || lowered === "no") return false;
  throw searchError(`invalid value "${text}" for "${key}:" (expected true or false)`);
}

function splitComparison(text: string): { op: Comparison | null; rest: string } {
  const match = /^(>=|<=|>|<|=)?(.*)$/s.exec(text) as RegExpExecArray;
  return { op: (match[1] as Comparison | undefined) ?? null, rest: match[2] as string };
}

function countComparison(text: string, key: string): { op: Comparison; value: number } {
  const { op, rest } = splitComparison(text);
  if (!/^\d{1,15}$/.test(rest))
    throw searchError(`invalid number "${text}" for "${key}:" (expected e.g. 10, >10, >=10, <10, <=10)`);
  return { op: op ?? "=", value: Number(rest) };
}

/** `-24h` (within the last 24 hours), `+7d` (older than 7 days), or an ISO date with an optional operator. */
function dateComparison(text: string, key: string): { op: Comparison; value: DateValue } {
  const duration = /^([+-])(\d{1,9})([a-zA-Z]*)$/.exec(text);
  if (duration) {
    const unit = DURATION_UNITS[duration[3] as string];
    if (unit === undefined) throw searchError(`invalid duration "${text}" for "${key}:" (units: m, h, d, w)`);
    return { op: duration[1] === "-" ? ">=" : "<=", value: { kind: "relative", ms: Number(duration[2]) * unit } };
  }
  const { op, rest } = splitComparison(text);
  const date = parseIsoDate(rest);
  if (!date)
    throw searchError(
      `invalid date "${text}" for "${key}:" (expected -24h, +7d, or an ISO 8601 date with an optional >, >=, < or <=)`,
    );
  return { op: op ?? "=", value: { kind: "absolute", ...date } };
}

/** ISO 8601 date or date-time; without a zone it is UTC. Impossible dates (Feb 30) are rejected. */
export function parseIsoDate(text: string): { date: Date; precision: "day" | "instant" } | null {
  const match = ISO_DATE.exec(text);
  if (!match) return null;
  const [, year, month, day, hour] = match;
  const dateOnly = hour === undefined;
  const zoned = dateOnly ? `${text}T00:00:00Z` : match[7] ? text : `${text}Z`;
  const date = new Date(zoned);
  if (Number.isNaN(date.getTime())) return null;
  // Date rolls Feb 30 over to March 2: compare the calendar date as written.
  const check = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (check.getUTCMonth() !== Number(month) - 1 || check.getUTCDate() !== Number(day)) return null;
  return { date, precision: dateOnly ? "day" : "instant" };
}
