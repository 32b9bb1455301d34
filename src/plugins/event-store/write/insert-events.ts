import { sql, type Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { NormalizedEvent } from "../grouping/types.js";
import type { ProjectRef, StorableEvent, StoredBatchEvent } from "../tokens.js";

type FreshEvent = StoredBatchEvent;

/**
 * Stores a batch's events: each (project, event id) is claimed in `event_ids` first, so an SDK's
 * retry is stored once (events is partitioned by time: its unique keys include `received`), then
 * the claimed ones are inserted. Returns them.
 *
 * Both statements pass one array per column to `unnest`, not one parameter per value: 500 events
 * are 19 parameters instead of 10,500, which no query builder has to turn into nodes and
 * PostgreSQL parses as a short statement (the digest profile in docs/performance.md). The JSON
 * columns travel as one JSON array, zipped with the others by `ROWS FROM`: as elements of a text
 * array, each payload would be escaped once more on the way.
 */
export async function insertEvents(
  trx: Transaction<Database>,
  items: readonly StorableEvent[],
  issueOf: readonly number[],
): Promise<FreshEvent[]> {
  const unique = new Map<string, FreshEvent>();
  items.forEach((item, index) => {
    const key = `${item.project.id}:${item.event.eventId}`;
    if (!unique.has(key)) unique.set(key, { item, issueId: issueOf[index] as number });
  });
  const candidates = [...unique.values()];
  const column = <T>(
    pick: (event: NormalizedEvent, project: ProjectRef, issueId: number) => T,
    of: readonly FreshEvent[] = candidates,
  ) => of.map(({ item, issueId }) => pick(item.event, item.project, issueId));

  const claimed = await trx
    .insertInto("event_ids")
    .columns(["project_id", "event_id", "received"])
    .expression(
      sql`SELECT * FROM unnest(${column((_, project) => project.id)}::integer[], ${column((event) => event.eventId)}::text[], ${column((event) => event.received.toISOString())}::timestamptz[])`,
    )
    .onConflict((oc) => oc.columns(["project_id", "event_id"]).doNothing())
    .returning(["project_id", "event_id"])
    .execute();
  const stored = new Set(claimed.map((row) => `${row.project_id}:${row.event_id}`));
  const fresh = candidates.filter(({ item }) => stored.has(`${item.project.id}:${item.event.eventId}`));
  if (fresh.length === 0) return fresh;

  const of = (pick: Parameters<typeof column>[0]) => column(pick, fresh);
  await trx
    .insertInto("events")
    .columns([
      "organization_id",
      "project_id",
      "issue_id",
      "event_id",
      "timestamp",
      "received",
      "level",
      "platform",
      "environment",
      "release",
      "dist",
      "type",
      "title",
      "culprit",
      "message",
      "location",
      "user_key",
      "tags",
      "hashes",
      "size",
      "payload",
    ])
    .expression(
      sql`SELECT organization_id, project_id, issue_id, event_id, timestamp, received, level, platform, environment, release, dist,
        type, title, culprit, message, location, user_key, document->'tags',
        ARRAY(SELECT hash FROM jsonb_array_elements_text(document->'hashes') WITH ORDINALITY AS h(hash, position) ORDER BY position), size, document->'payload'
      FROM ROWS FROM (
        unnest(${of((_, project) => project.organizationId)}::integer[], ${of((_, project) => project.id)}::integer[], ${of((_, __, issueId) => issueId)}::bigint[],
          ${of((event) => event.eventId)}::text[], ${of((event) => event.timestamp.toISOString())}::timestamptz[], ${of((event) => event.received.toISOString())}::timestamptz[],
          ${of((event) => event.level)}::text[], ${of((event) => event.platform)}::text[], ${of((event) => event.environment)}::text[],
          ${of((event) => event.release)}::text[], ${of((event) => event.dist)}::text[], ${of((event) => event.type)}::text[],
          ${of((event) => event.title)}::text[], ${of((event) => event.culprit)}::text[], ${of((event) => event.message)}::text[],
          ${of((event) => event.location)}::text[], ${of((event) => event.userKey)}::text[], ${of((event) => event.size)}::integer[]),
        jsonb_array_elements(${JSON.stringify(of((event) => ({ tags: event.tags, hashes: event.hashes, payload: event.payload })))}::jsonb)
      ) AS v(organization_id, project_id, issue_id, event_id, timestamp, received, level, platform, environment, release, dist,
        type, title, culprit, message, location, user_key, size, document)`,
    )
    .execute();
  return fresh;
}
