import { z } from "zod";
import { ApiError } from "../../../http/errors.js";
import { cursorSchema, pageSizeSchema } from "../../../http/pagination.js";
import { repeatable } from "../../../http/query-params.js";
import { resolveTimeRange, timeRangeShape } from "../../../http/time-range.js";
import type { EventOrder } from "./issue-events.js";

/**
 * The query of Sentry's event lists (an issue's `events/`, a project's `events/`; see
 * docs/sentry-compatibility.md, "Issue-scoped reads and lookups"), shared so both read it alike.
 */

/**
 * The subset of Sentry's event search the event lists understand: `key:value` terms on tags
 * (quoted values may hold spaces) and free text matched against the title and message (words, or
 * a quoted phrase), all of which must match. Anything else (negation, operators) is a 400 naming
 * the term rather than a silently wider list.
 */
const TERM = /(!?)([\w.-]+):(?:"((?:[^"\\]|\\.)*)"|(\S+))|"((?:[^"\\]|\\.)*)"|(\S+)/y;
export function parseEventQuery(query: string): { tags: Array<[string, string]>; text: string[] } | string {
  const tags: Array<[string, string]> = [];
  const text: string[] = [];
  let rest = query.trim();
  while (rest !== "") {
    TERM.lastIndex = 0;
    const match = TERM.exec(rest);
    if (!match) return `unsupported search term near "${rest.slice(0, 40)}"`;
    const [term, negated, key, quoted, bare, phrase, word] = match;
    if (negated) return `negated terms (${term}) are not supported here: only key:value tag terms and free text`;
    if (key !== undefined) tags.push([key, quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : (bare as string)]);
    else if (phrase !== undefined) text.push(phrase.replace(/\\(.)/g, "$1"));
    else if (word !== undefined && !/^(AND|OR)$/.test(word)) text.push(word);
    else if (word === "OR") return "OR is not supported here: every term must match";
    rest = rest.slice(TERM.lastIndex).trimStart();
  }
  return { tags, text };
}

/** `environment` (repeatable; empty values ignored). */
export const environmentsParam = repeatable.transform((values) => values.filter((value) => value !== ""));

const flag = z
  .enum(["0", "1", "true", "false"], { error: 'must be "1", "0", "true" or "false"' })
  .optional()
  .transform((value) => value === "1" || value === "true");

/** `statsPeriod`/`start`/`end`, `environment`, `query`, `sort`, `full`, `sample`, `per_page`, `cursor`. */
export const eventListQuery = z
  .object({
    ...timeRangeShape,
    environment: environmentsParam,
    query: z.string().max(1000).optional(),
    sort: z.enum(["-timestamp", "timestamp"], { error: 'must be "-timestamp" or "timestamp"' }).default("-timestamp"),
    full: flag,
    /** Sentry's deterministic pseudo-random order: accepted, and the order stays newest first. */
    sample: flag,
    per_page: pageSizeSchema,
    cursor: cursorSchema,
  })
  .transform((query, ctx) => {
    const terms = parseEventQuery(query.query ?? "");
    if (typeof terms === "string") {
      ctx.addIssue({ code: "custom", path: ["query"], message: terms });
      return z.NEVER;
    }
    return { ...query, ...terms };
  });

export type EventListQuery = z.output<typeof eventListQuery>;

/** Without a window a list shows every retained event (Sentry's default is its retention too). */
const ALL_TIME_MS = 3650 * 86_400_000;

/** What an event list's query narrows to at `now` (the filter less its issue or project) and its order. */
export function eventListTerms(query: EventListQuery, now: Date) {
  const windowed = query.statsPeriod !== undefined || query.start !== undefined || query.end !== undefined;
  const range = resolveTimeRange(query, now, ALL_TIME_MS);
  if (typeof range === "string") throw new ApiError(400, range, { start: [range] });
  const order: EventOrder = query.sort === "timestamp" ? "oldest" : "newest";
  return {
    filter: {
      ...(windowed ? { start: range.start, end: range.end } : {}),
      environments: query.environment,
      tags: query.tags,
      text: query.text,
    },
    order,
  };
}
