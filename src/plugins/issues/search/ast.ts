import type { EventField } from "./keys.js";

/** The typed form of an issue search query: a list of terms, all ANDed. */

export type Comparison = ">" | ">=" | "<" | "<=" | "=";

export const IS_VALUES = [
  "unresolved",
  "for_review",
  "resolved",
  "ignored",
  "assigned",
  "unassigned",
  "linked",
  "unlinked",
  "new",
  "ongoing",
  "regressed",
  "escalating",
] as const;
export type IsValue = (typeof IS_VALUES)[number];

export const LEVELS = ["fatal", "error", "warning", "info", "debug"] as const;
export type Level = (typeof LEVELS)[number];

/** `-24h` is relative to the time of the request; an ISO date is absolute. */
export type DateValue =
  | { kind: "relative"; ms: number }
  /** `day`: a date without a time, so `=` means "during that UTC day". */
  | { kind: "absolute"; date: Date; precision: "day" | "instant" };

/** Who `assigned:` names: `me`, `none`, `my_teams`, `#team-slug`, or a username / email / user id / team name. */
export type AssigneeRef =
  | { kind: "me" }
  | { kind: "none" }
  | { kind: "my_teams" }
  | { kind: "team"; slug: string }
  | { kind: "user"; ref: string };

/** Whose per-user flag `bookmarks:` / `subscribed:` reads: `me`, or a username / email / user id. */
export type UserRef = { kind: "me" } | { kind: "user"; ref: string };

/**
 * A `key:value` filter. Every list-valued filter means "any of" (`key:[a, b]`); in string values
 * `*` is a wildcard (`user.email:*@acme.test`).
 */
export type SearchFilter =
  | { type: "is"; values: IsValue[] }
  | { type: "assigned"; values: AssigneeRef[] }
  | { type: "bookmarks" | "subscribed"; values: UserRef[] }
  | { type: "level"; values: Level[] }
  /** `latest` among the release values means the project's newest release. */
  | { type: "environment" | "release" | "firstRelease"; values: string[] }
  | { type: "date"; field: "firstSeen" | "lastSeen"; op: Comparison; value: DateValue }
  | { type: "count"; field: "timesSeen" | "userCount"; op: Comparison; value: number }
  /** Tag keys and event fields (`user`, `user.email`, `error.type`). */
  | { type: "has"; keys: string[] }
  /** A substring of the title or message. */
  | { type: "message"; values: string[] }
  | { type: "field"; field: EventField; values: string[] }
  /** `error.handled:true` is `handled: true`; `error.unhandled:true` is `handled: false`. */
  | { type: "handled"; handled: boolean }
  /** `known`: a built-in tag or `tags[key]`, searched even if no event has it yet; else the key must exist. */
  | { type: "tag"; key: string; values: string[]; known: boolean };

/** `!key:value` sets `negated`; free text (a bare word or a quoted phrase) cannot be negated. */
export type SearchTerm = (SearchFilter & { negated: boolean }) | { type: "text"; text: string };

export interface SearchQuery {
  terms: SearchTerm[];
}
