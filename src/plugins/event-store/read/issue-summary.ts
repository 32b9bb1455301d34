import { sql, type Kysely } from "kysely";
import { tableIn } from "../../../db/identifiers.js";
import type { Database } from "../../../db/schema.js";
import type { StoredEvent } from "../tables.js";

/** One bucket of an issue's event counts (event time, floored to the hour or the UTC day). */
export interface EventCountBucket {
  bucket: Date;
  count: number;
}

/**
 * What an issue's stored events add up to: what its counters, facets and stats buckets are
 * recomputed from after an unmerge (events already dropped by retention are not counted).
 */
export interface IssueEventSummary {
  count: number;
  /** Event time of the oldest and newest event; null without events. */
  firstSeen: Date | null;
  lastSeen: Date | null;
  /** The release of the oldest and of the newest event that has one. */
  firstRelease: string | null;
  lastRelease: string | null;
  /** The newest event (by event time). */
  latest: StoredEvent | undefined;
  /** Distinct users, each with when it was first received. */
  users: Array<{ userKey: string; firstSeen: Date }>;
  environments: string[];
  releases: string[];
  tags: Array<[string, string]>;
  /** The event fields issue search reads (grouping/search-values.ts), as `[field, value]`. */
  searchValues: Array<[string, string]>;
  hourly: EventCountBucket[];
  daily: EventCountBucket[];
}

const bucketOf = (seconds: number) =>
  sql`to_timestamp(floor(extract(epoch FROM "timestamp") / ${seconds}) * ${seconds})`;

async function buckets(db: Kysely<Database>, issueId: number, seconds: number): Promise<EventCountBucket[]> {
  const rows = await db
    .selectFrom("events")
    .select([bucketOf(seconds).as("bucket"), sql<number>`count(*)::integer`.as("count")])
    .where("issue_id", "=", issueId)
    .groupBy(sql`1`)
    .execute();
  return rows.map((row) => ({ bucket: new Date(row.bucket as Date), count: row.count }));
}

async function edgeRelease(db: Kysely<Database>, issueId: number, order: "asc" | "desc"): Promise<string | null> {
  const row = await db
    .selectFrom("events")
    .select("release")
    .where("issue_id", "=", issueId)
    .where("release", "is not", null)
    .orderBy("timestamp", order)
    .orderBy("id", order)
    .limit(1)
    .executeTakeFirst();
  return row?.release ?? null;
}

async function distinctColumn(db: Kysely<Database>, issueId: number, column: "environment" | "release") {
  const rows = await db
    .selectFrom("events")
    .select(column)
    .distinct()
    .where("issue_id", "=", issueId)
    .where(column, "is not", null)
    .execute();
  return rows.map((row) => row[column] as string);
}

async function distinctTags(db: Kysely<Database>, schema: string, issueId: number): Promise<Array<[string, string]>> {
  const { rows } = await sql<{ key: string; value: string }>`
    SELECT DISTINCT t.value->>0 AS key, t.value->>1 AS value
    FROM ${tableIn(schema)("events")} e CROSS JOIN LATERAL jsonb_array_elements(e.tags) t
    WHERE e.issue_id = ${issueId}`.execute(db);
  return rows.map((row) => [row.key, row.value]);
}

/**
 * What grouping/search-values.ts derives at ingest (users' id, email, username and IP; every
 * exception's type and value), read back from the stored payloads in SQL: an issue may hold far
 * more events than are worth normalising again. Same cleaning: one line, trimmed, 200 characters.
 */
async function distinctSearchValues(
  db: Kysely<Database>,
  schema: string,
  issueId: number,
): Promise<Array<[string, string]>> {
  const exceptions = sql`jsonb_array_elements(CASE
      WHEN jsonb_typeof(e.payload->'exception'->'values') = 'array' THEN e.payload->'exception'->'values'
      WHEN jsonb_typeof(e.payload->'exception') = 'array' THEN e.payload->'exception'
      ELSE '[]'::jsonb END)`;
  const { rows } = await sql<{ field: string; value: string }>`
    SELECT DISTINCT v.field, left(btrim(regexp_replace(v.value, '[\r\n]+', ' ', 'g')), 200) AS value
    FROM ${tableIn(schema)("events")} e CROSS JOIN LATERAL (
      SELECT 'user.id', e.payload->'user'->>'id'
      UNION ALL SELECT 'user.email', e.payload->'user'->>'email'
      UNION ALL SELECT 'user.username', e.payload->'user'->>'username'
      UNION ALL SELECT 'user.ip', e.payload->'user'->>'ip_address'
      UNION ALL SELECT 'error.type', x->>'type' FROM ${exceptions} x
      UNION ALL SELECT 'error.value', x->>'value' FROM ${exceptions} x
    ) AS v(field, value)
    WHERE e.issue_id = ${issueId} AND btrim(coalesce(v.value, '')) <> ''`.execute(db);
  return rows.map((row) => [row.field, row.value]);
}

/** Sums up an issue's stored events, read through `db` (the caller's transaction, after it moved events). */
export async function summarizeIssueEvents(
  db: Kysely<Database>,
  schema: string,
  issueId: number,
): Promise<IssueEventSummary> {
  const totals = await db
    .selectFrom("events")
    .select([
      sql<number>`count(*)::integer`.as("count"),
      sql<Date | null>`min("timestamp")`.as("first_seen"),
      sql<Date | null>`max("timestamp")`.as("last_seen"),
    ])
    .where("issue_id", "=", issueId)
    .executeTakeFirstOrThrow();
  const users = await db
    .selectFrom("events")
    .select(["user_key", sql<Date>`min(received)`.as("first_seen")])
    .where("issue_id", "=", issueId)
    .where("user_key", "is not", null)
    .groupBy("user_key")
    .execute();
  const latest = await db
    .selectFrom("events")
    .selectAll()
    .where("issue_id", "=", issueId)
    .orderBy("timestamp", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  const date = (value: Date | null) => (value === null ? null : new Date(value));
  return {
    count: totals.count,
    firstSeen: date(totals.first_seen),
    lastSeen: date(totals.last_seen),
    firstRelease: await edgeRelease(db, issueId, "asc"),
    lastRelease: await edgeRelease(db, issueId, "desc"),
    latest,
    users: users.map((row) => ({ userKey: row.user_key as string, firstSeen: new Date(row.first_seen) })),
    environments: await distinctColumn(db, issueId, "environment"),
    releases: await distinctColumn(db, issueId, "release"),
    tags: await distinctTags(db, schema, issueId),
    searchValues: await distinctSearchValues(db, schema, issueId),
    hourly: await buckets(db, issueId, 3600),
    daily: await buckets(db, issueId, 86_400),
  };
}
