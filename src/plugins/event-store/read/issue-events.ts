import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { StoredEvent } from "../tables.js";
import { type KeysetBound, keysetPage, type Page } from "../../../http/pagination.js";

/**
 * Reads of one issue's events (Sentry's `issues/{id}/events/…`; docs/sentry-compatibility.md,
 * "Issue-scoped reads and lookups"). The issue has been resolved in the caller's organization
 * already; every query still filters by organization too.
 */

/** What narrows the events of an issue: a time window, environments and `key:value` tag terms. */
export interface IssueEventFilter {
  organizationId: number;
  issueId: number;
  start?: Date;
  end?: Date;
  environments: string[];
  tags: Array<[string, string]>;
  /** Free-text terms: each must occur in the title or the message (case-insensitive). */
  text: string[];
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `-timestamp` (newest first, Sentry's default) or `timestamp` (oldest first). */
export type EventOrder = "newest" | "oldest";

/**
 * What narrows a project's events (Sentry's `projects/{org}/{project}/events/`): the issue
 * filter's terms over one project, events of deleted issues left out.
 */
export type ProjectEventFilter = Omit<IssueEventFilter, "issueId"> & { projectId: number };

function filtered(db: Kysely<Database>, filter: IssueEventFilter | ProjectEventFilter) {
  let query = db.selectFrom("events").selectAll("events").where("events.organization_id", "=", filter.organizationId);
  query =
    "issueId" in filter
      ? query.where("issue_id", "=", filter.issueId)
      : query
          .where("events.project_id", "=", filter.projectId)
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom("issues")
                .select(sql.lit(1).as("one"))
                .whereRef("issues.id", "=", "events.issue_id")
                .where("issues.deleted_at", "is", null),
            ),
          );
  if (filter.start) query = query.where("timestamp", ">=", filter.start);
  if (filter.end) query = query.where("timestamp", "<", filter.end);
  if (filter.environments.length > 0) query = query.where("environment", "in", filter.environments);
  for (const pair of filter.tags)
    query = query.where(sql<boolean>`${sql.ref("tags")} @> ${JSON.stringify([pair])}::jsonb`);
  for (const text of filter.text)
    query = query.where((eb) =>
      eb.or([eb("title", "ilike", likePattern(text)), eb("message", "ilike", likePattern(text))]),
    );
  return query;
}

/**
 * One page of the issue's (or the project's) events. The cursor walks (timestamp, id) descending for the newest-first
 * order; oldest first walks the negated timestamp (cursor values may be negative), ids still
 * descending among events of the same millisecond.
 */
export function issueEventPage(
  db: Kysely<Database>,
  filter: IssueEventFilter | ProjectEventFilter,
  order: EventOrder,
  cursor: string | undefined,
  limit: number,
): Promise<Page<StoredEvent>> {
  const fetch = (bound: KeysetBound) => {
    let query = filtered(db, filter);
    // The keyset's own direction: `desc` walks forward through the requested order.
    const forward = bound.order === "desc";
    const timeDirection = (order === "newest") === forward ? "desc" : "asc";
    if (bound.after) {
      const at = new Date(order === "newest" ? bound.after.value : -bound.after.value);
      const id = bound.after.id;
      const later = timeDirection === "asc" ? sql.raw(">") : sql.raw("<");
      const beyondId = forward ? sql.raw("<") : sql.raw(">");
      query = query.where(sql<boolean>`(timestamp ${later} ${at} OR (timestamp = ${at} AND id ${beyondId} ${id}))`);
    }
    return query
      .orderBy("timestamp", timeDirection)
      .orderBy("id", forward ? "desc" : "asc")
      .limit(bound.limit)
      .execute();
  };
  return keysetPage(fetch, {
    cursor,
    limit,
    keyOf: (row) => (order === "newest" ? row.timestamp.getTime() : -row.timestamp.getTime()),
    idOf: (row) => Number(row.id),
  });
}

/** The issue's newest or oldest event (by event time, then row id), within the filter. */
export function issueEdgeEvent(
  db: Kysely<Database>,
  filter: IssueEventFilter,
  which: EventOrder,
): Promise<StoredEvent | undefined> {
  const direction = which === "newest" ? "desc" : "asc";
  return filtered(db, filter).orderBy("timestamp", direction).orderBy("id", direction).limit(1).executeTakeFirst();
}

/** One event of the issue by its event id. */
export function issueEventById(
  db: Kysely<Database>,
  filter: IssueEventFilter,
  eventId: string,
): Promise<StoredEvent | undefined> {
  return filtered(db, filter).where("event_id", "=", eventId).executeTakeFirst();
}

/**
 * An event of the organization by its event id, in a live issue, with its project's slug
 * (Sentry's `eventids` lookup). Event ids are unique per project, not per organization: two
 * projects may share one, and the most recent wins.
 */
export function organizationEventById(db: Kysely<Database>, organizationId: number, eventId: string) {
  return db
    .selectFrom("events")
    .innerJoin("issues", "issues.id", "events.issue_id")
    .innerJoin("projects", "projects.id", "events.project_id")
    .selectAll("events")
    .select("projects.slug as project_slug")
    .where("events.organization_id", "=", organizationId)
    .where("issues.organization_id", "=", organizationId)
    .where("projects.organization_id", "=", organizationId)
    .where("events.event_id", "=", eventId)
    .where("issues.deleted_at", "is", null)
    .orderBy("events.timestamp", "desc")
    .limit(1)
    .executeTakeFirst();
}
