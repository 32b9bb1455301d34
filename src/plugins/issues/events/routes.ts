import { z } from "zod";
import type { DependencyContainer } from "tsyringe";
import { Clock } from "../../../container/tokens.js";
import type { Issue } from "../tables.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { cursorSchema, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { repeatable } from "../../../http/query-params.js";
import { resolveTimeRange, timeRangeShape } from "../../../http/time-range.js";
import {
  type EventOrder,
  EventStoreToken,
  type IssueEventFilter,
  parseEventId,
  serializeEvent,
  serializeIssueEventItem,
  type StoredEvent,
} from "../../event-store/index.js";
import { IssueRepositoryToken } from "../tokens.js";

export const ISSUE_PATH = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/";

/** The live issue of the organization an `{issue_id}` names (numeric or short id); 404 otherwise. */
export async function requireIssue(
  container: DependencyContainer,
  organizationId: number,
  ref: string,
): Promise<Issue> {
  const issue = await container.resolve(IssueRepositoryToken).find(organizationId, ref);
  if (!issue) throw notFound();
  return issue;
}

const environments = repeatable.transform((values) => values.filter((value) => value !== ""));
const flag = z
  .enum(["0", "1", "true", "false"], { error: 'must be "1", "0", "true" or "false"' })
  .optional()
  .transform((value) => value === "1" || value === "true");

/**
 * The subset of Sentry's event search the issue's event list understands: `key:value` terms on
 * tags (quoted values may hold spaces) and free text matched against the title and message
 * (words, or a quoted phrase), all of which must match. Anything else (negation, operators) is a
 * 400 naming the term rather than a silently wider list.
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

const listQuery = z
  .object({
    ...timeRangeShape,
    environment: environments,
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

/** Without a window the list shows every retained event (Sentry's default is its retention too). */
const ALL_TIME_MS = 3650 * 86_400_000;

export const listIssueEvents = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}events/`,
  operationId: "issues.events",
  summary: "List an issue's events, newest first (`full=1` for detailed events)",
  scopes: ["event:read"],
  query: listQuery,
  handler: async ({ organization, params, query, container, url }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const windowed = query.statsPeriod !== undefined || query.start !== undefined || query.end !== undefined;
    const range = resolveTimeRange(query, container.resolve(Clock).now(), ALL_TIME_MS);
    if (typeof range === "string") throw new ApiError(400, range, { start: [range] });
    const filter: IssueEventFilter = {
      organizationId: organization.id,
      issueId: Number(issue.id),
      ...(windowed ? { start: range.start, end: range.end } : {}),
      environments: query.environment,
      tags: query.tags,
      text: query.text,
    };
    const order: EventOrder = query.sort === "timestamp" ? "oldest" : "newest";
    const page = await container.resolve(EventStoreToken).issueEventPage(filter, order, query.cursor, query.per_page);
    const noNeighbours = { previous: null, next: null };
    // A detailed event in a list keeps the list item's own fields too (Sentry's schema requires them).
    const serialize = (row: StoredEvent): object =>
      query.full
        ? { ...serializeEvent(row, noNeighbours), "event.type": row.type, crashFile: null }
        : serializeIssueEventItem(row);
    return pageReply(url, page, query.per_page, serialize);
  },
});

export const getIssueEvent = defineEndpoint({
  method: "GET",
  path: `${ISSUE_PATH}events/{event_id}/`,
  operationId: "issues.event",
  summary: "Retrieve an issue's event: `latest`, `oldest`, `recommended` (the latest) or an event id",
  scopes: ["event:read"],
  query: z.object({ environment: environments }),
  handler: async ({ organization, params, query, container }) => {
    const issue = await requireIssue(container, organization.id, params.issue_id);
    const store = container.resolve(EventStoreToken);
    const filter: IssueEventFilter = {
      organizationId: organization.id,
      issueId: Number(issue.id),
      environments: query.environment,
      tags: [],
      text: [],
    };
    const which = params.event_id.toLowerCase();
    let event;
    if (which === "latest" || which === "recommended") event = await store.latestEvent(filter, "newest");
    else if (which === "oldest") event = await store.latestEvent(filter, "oldest");
    else {
      const eventId = parseEventId(params.event_id);
      event = eventId === null ? undefined : await store.issueEvent(filter, eventId);
    }
    if (!event) throw new ApiError(404, "Event not found");
    return { body: serializeEvent(event, await store.neighbours(event)) };
  },
});
