/**
 * The issue search vocabulary: every key the parser knows, its spellings, and what the dashboard
 * suggests for it. The parser, the `issue-search-keys` endpoint (the dashboard's suggestions) and
 * docs/search.md are all checked against this one list.
 */

/** How a key's value is read (parser.ts turns each kind into its typed filter). */
export type SearchKeyKind =
  | "is"
  | "assigned"
  | "user-flag"
  | "level"
  | "facet"
  | "first-release"
  | "date"
  | "count"
  | "has"
  | "message"
  | "event-field"
  | "handled"
  /** Backed by a tag Faultline derives on every event (`url`, `logger`, `browser.name`…). */
  | "derived-tag";

export interface SearchKeyDefinition {
  /** The name the parser maps every alias to. */
  key: string;
  /** Other accepted spellings: Sentry's snake_case and camelCase forms. */
  aliases: readonly string[];
  kind: SearchKeyKind;
  description: string;
  /** Complete tokens the dashboard offers as suggestions. */
  examples: readonly string[];
}

const define = (
  key: string,
  kind: SearchKeyKind,
  description: string,
  examples: readonly string[],
  aliases: readonly string[] = [],
): SearchKeyDefinition => ({ key, aliases, kind, description, examples });

/** Event fields kept per issue for search (issue_search_values), not shown as tags. */
export const EVENT_FIELDS = ["user.id", "user.email", "user.username", "user.ip", "error.type", "error.value"] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

/** Tags derived from every event (event-store grouping/tags.ts): searchable before any event carries them. */
export const DERIVED_TAGS = [
  "url",
  "logger",
  "transaction",
  "server_name",
  "user",
  "browser",
  "browser.name",
  "os",
  "os.name",
  "runtime",
  "runtime.name",
  "device",
  "handled",
  "mechanism",
] as const;

export const SEARCH_KEYS: readonly SearchKeyDefinition[] = [
  define(
    "is",
    "is",
    "Status and state: unresolved, resolved, ignored (archived), assigned, unassigned, for_review, linked, unlinked, new, ongoing, regressed, escalating.",
    [
      "is:unresolved",
      "is:resolved",
      "is:ignored",
      "is:assigned",
      "is:unassigned",
      "is:for_review",
      "is:linked",
      "is:unlinked",
      "is:new",
      "is:regressed",
      "is:escalating",
    ],
  ),
  define(
    "assigned",
    "assigned",
    "Assignee: me, my_teams, none, #team-slug, or a member's email, username or id.",
    ["assigned:me", "assigned:my_teams", "assigned:none", "assigned:#"],
    ["assigned_or_suggested"],
  ),
  define("bookmarks", "user-flag", "Bookmarked by me or by a member (email, username or id).", ["bookmarks:me"]),
  define("subscribed", "user-flag", "Subscribed to by me or by a member.", ["subscribed:me"]),
  define("level", "level", "Level: fatal, error, warning, info, debug.", [
    "level:error",
    "level:warning",
    "level:fatal",
  ]),
  define("environment", "facet", "An environment any event of the issue had.", ["environment:"]),
  define("release", "facet", "A release any event of the issue had; `latest` is the project's newest release.", [
    "release:latest",
    "release:",
  ]),
  define(
    "firstRelease",
    "first-release",
    "The release of the issue's first event; `latest` as for release.",
    ["firstRelease:latest"],
    ["first_release"],
  ),
  define(
    "firstSeen",
    "date",
    "When the issue was first seen: -24h (within), +7d (older than), or an ISO date with >, >=, <, <=.",
    ["firstSeen:-24h", "age:-24h"],
    ["first_seen", "age"],
  ),
  define(
    "lastSeen",
    "date",
    "When the issue was last seen, as firstSeen.",
    ["lastSeen:-1h", "lastSeen:+7d"],
    ["last_seen"],
  ),
  define(
    "timesSeen",
    "count",
    "Number of events, with >, >=, <, <= or =.",
    ["times_seen:>10", "timesSeen:>100"],
    ["times_seen"],
  ),
  define("userCount", "count", "Number of distinct users, as timesSeen.", ["user_count:>5"], ["user_count"]),
  define("has", "has", "The issue has a value for a tag or an event field (user, user.email, error.type…).", [
    "has:user",
    "!has:user",
    "has:",
  ]),
  define("message", "message", "Text in the issue's title or message (a substring; * is a wildcard).", ['message:""']),
  define("user.id", "event-field", "An event user's id.", ["user.id:"]),
  define("user.email", "event-field", "An event user's email (* is a wildcard: *@example.com).", ["user.email:"]),
  define("user.username", "event-field", "An event user's username.", ["user.username:"]),
  define("user.ip", "event-field", "An event user's IP address.", ["user.ip:"], ["user.ip_address"]),
  define("error.type", "event-field", "An exception type anywhere in an event's chain.", ["error.type:"]),
  define("error.value", "event-field", "An exception value anywhere in an event's chain (* is a wildcard).", [
    "error.value:",
  ]),
  define("error.handled", "handled", "Events whose exceptions were handled (true) or not (false).", [
    "error.handled:true",
  ]),
  define("error.unhandled", "handled", "Events with an unhandled exception (true) or not (false).", [
    "error.unhandled:true",
  ]),
  ...DERIVED_TAGS.map((tag) =>
    define(tag, "derived-tag", `The \`${tag}\` tag Faultline derives from every event.`, [`${tag}:`]),
  ),
];

const BY_SPELLING = new Map(
  SEARCH_KEYS.flatMap((definition) => [definition.key, ...definition.aliases].map((name) => [name, definition])),
);

/** The definition a key as written names (any alias), or undefined for a tag key. */
export function searchKey(written: string): SearchKeyDefinition | undefined {
  return BY_SPELLING.get(written);
}
