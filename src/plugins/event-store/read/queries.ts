import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { StoredEvent } from "../tables.js";
import type { Neighbours } from "./serialize.js";

const HEX_ID = /^[0-9a-f]{32}$/;
const DASHED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An event id from a path: 32 hex, or a dashed UUID, any case, as the stored 32 lowercase hex; null otherwise. */
export function parseEventId(value: string): string | null {
  const id = value.toLowerCase();
  if (HEX_ID.test(id)) return id;
  return DASHED_UUID.test(id) ? id.replaceAll("-", "") : null;
}

/** One event of a project; events of a deleted issue are gone with it (docs/issues.md, "Deleting"). */
export function findProjectEvent(
  db: Kysely<Database>,
  organizationId: number,
  projectId: number,
  eventId: string,
): Promise<StoredEvent | undefined> {
  return db
    .selectFrom("events")
    .innerJoin("issues", "issues.id", "events.issue_id")
    .selectAll("events")
    .where("events.organization_id", "=", organizationId)
    .where("events.project_id", "=", projectId)
    .where("events.event_id", "=", eventId)
    .where("issues.deleted_at", "is", null)
    .executeTakeFirst();
}

/** The events just before and after this one in its issue, by (timestamp, id): the events_by_issue order. */
export async function eventNeighbours(db: Kysely<Database>, event: StoredEvent): Promise<Neighbours> {
  const nearest = (side: "before" | "after") => {
    const operator = sql.raw(side === "before" ? "<" : ">");
    const order = side === "before" ? "desc" : "asc";
    return db
      .selectFrom("events")
      .select("event_id")
      .where("issue_id", "=", Number(event.issue_id))
      .where(sql<boolean>`(timestamp, id) ${operator} (${event.timestamp}, ${Number(event.id)})`)
      .orderBy("timestamp", order)
      .orderBy("id", order)
      .limit(1)
      .executeTakeFirst();
  };
  const [previous, next] = await Promise.all([nearest("before"), nearest("after")]);
  return { previous: previous?.event_id ?? null, next: next?.event_id ?? null };
}

/** Events, or distinct users, of an issue received at or after `since` (the snooze windows' counts). */
export async function countIssueEvents(
  db: Kysely<Database>,
  issueId: number,
  since: Date,
  what: "events" | "users",
): Promise<number> {
  const base = db.selectFrom("events").where("issue_id", "=", issueId).where("received", ">=", since);
  const row =
    what === "events"
      ? await base.select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()
      : await base.select((eb) => eb.fn.count("user_key").distinct().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}
