/** The typed form of an issue search query: a list of terms, all ANDed. */

export type Comparison = ">" | ">=" | "<" | "<=" | "=";

export const IS_VALUES = [
  "unresolved",
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

/** A `key:value` filter. Every list-valued filter means "any of" (`key:[a, b]`). */
export type SearchFilter =
  | { type: "is"; values: IsValue[] }
  | { type: "assigned"; values: AssigneeRef[] }
  | { type: "bookmarks" | "subscribed"; values: UserRef[] }
  | { type: "level"; values: Level[] }
  | { type: "environment" | "release"; values: string[] }
  | { type: "date"; field: "firstSeen" | "lastSeen"; op: Comparison; value: DateValue }
  | { type: "count"; field: "timesSeen" | "userCount"; op: Comparison; value: number }
  | { type: "has"; keys: string[] }
  | { type: "tag"; key: string; values: string[] };

/** `!key:value` sets `negated`; free text (a bare word or a quoted phrase) cannot be negated. */
export type SearchTerm = (SearchFilter & { negated: boolean }) | { type: "text"; text: string };

export interface SearchQuery {
  terms: SearchTerm[];
}
