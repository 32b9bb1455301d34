import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import { isoDate } from "../../../http/format.js";

/**
 * Tag keys and values of one issue's events (Sentry's `issues/{id}/tags/…`), counted from the
 * stored events: an issue's events are found by the events_by_issue index, and each event's
 * tags are a small jsonb list. Counts cover the events retention kept, not every event ever seen
 * (`count` on the issue does).
 */

export interface TagScope {
  organizationId: number;
  issueId: number;
  environments: string[];
}

export interface TagValueRow {
  key: string;
  value: string;
  count: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
}

/** How values are ordered: Sentry's `sort` (`-count` most seen first, `-date` last seen, `-age` first seen, `id`). */
export const TAG_VALUE_SORTS = ["count", "-count", "date", "-date", "age", "-age", "id", "-id"] as const;
export type TagValueSort = (typeof TAG_VALUE_SORTS)[number];

const ORDER: Record<TagValueSort, string> = {
  count: "v.count ASC, v.value ASC",
  "-count": "v.count DESC, v.value ASC",
  date: "v.last_seen ASC, v.value ASC",
  "-date": "v.last_seen DESC, v.value ASC",
  age: "v.first_seen ASC, v.value ASC",
  "-age": "v.first_seen DESC, v.value ASC",
  id: "v.value ASC",
  "-id": "v.value DESC",
};

interface Row {
  key: string;
  value: string;
  count: string | number | bigint;
  first_seen: Date | string | null;
  last_seen: Date | string | null;
}

const toDate = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value : new Date(value);
const toRow = (row: Row): TagValueRow => ({
  key: row.key,
  value: row.value,
  count: Number(row.count),
  firstSeen: toDate(row.first_seen),
  lastSeen: toDate(row.last_seen),
});

const KEY = sql<string>`t.value->>0`;
const VALUE = sql<string>`t.value->>1`;

/** The (event, tag) pairs of the issue's events: a set-returning function in FROM is lateral, so it sees `e.tags`. */
function tagPairs(db: Kysely<Database>, scope: TagScope, key: string | null) {
  let query = db
    .selectFrom(["events as e", sql<{ value: unknown }>`jsonb_array_elements(e.tags)`.as("t")])
    .where("e.organization_id", "=", scope.organizationId)
    .where("e.issue_id", "=", scope.issueId);
  if (key !== null) query = query.where(KEY, "=", key);
  if (scope.environments.length > 0) query = query.where("e.environment", "in", scope.environments);
  return query;
}

function valueAggregates(db: Kysely<Database>, scope: TagScope, key: string | null) {
  return tagPairs(db, scope, key)
    .select([
      KEY.as("key"),
      VALUE.as("value"),
      sql<string>`count(*)`.as("count"),
      sql<Date>`min(e.timestamp)`.as("first_seen"),
      sql<Date>`max(e.timestamp)`.as("last_seen"),
    ])
    .groupBy([KEY, VALUE]);
}

/** Values of one key, ordered, `limit` from `offset`. */
export async function tagValues(
  db: Kysely<Database>,
  scope: TagScope,
  key: string,
  sort: TagValueSort,
  offset: number,
  limit: number,
): Promise<TagValueRow[]> {
  const rows = await db
    .selectFrom(valueAggregates(db, scope, key).as("v"))
    .selectAll("v")
    .orderBy(sql.raw(ORDER[sort]))
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(toRow);
}

export interface TagKeySummary {
  key: string;
  /** Events carrying the key. */
  totalValues: number;
  uniqueValues: number;
}

/** Every key of the issue's events (or one), with how many events carry it and how many values it has. */
export async function tagKeys(db: Kysely<Database>, scope: TagScope, key: string | null): Promise<TagKeySummary[]> {
  const rows = await tagPairs(db, scope, key)
    .select([
      KEY.as("key"),
      sql<string>`count(*)`.as("total"),
      sql<string>`count(DISTINCT t.value->>1)`.as("unique_values"),
    ])
    .groupBy(KEY)
    .orderBy(KEY)
    .execute();
  return rows.map((row) => ({ key: row.key, totalValues: Number(row.total), uniqueValues: Number(row.unique_values) }));
}

/** The most seen values of each key, at most `perKey` per key. */
export async function topValues(
  db: Kysely<Database>,
  scope: TagScope,
  key: string | null,
  perKey: number,
): Promise<Map<string, TagValueRow[]>> {
  const ranked = valueAggregates(db, scope, key).select(
    sql<number>`row_number() OVER (PARTITION BY t.value->>0 ORDER BY count(*) DESC, t.value->>1)`.as("rank"),
  );
  const rows = await db
    .selectFrom(ranked.as("r"))
    .select(["r.key", "r.value", "r.count", "r.first_seen", "r.last_seen"])
    .where("r.rank", "<=", perKey)
    .orderBy("r.key")
    .orderBy(sql`r.count DESC`)
    .orderBy("r.value")
    .execute();
  const byKey = new Map<string, TagValueRow[]>();
  for (const row of rows.map(toRow)) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
  return byKey;
}

/** Sentry's label for a tag key: its own few names, else the key itself. */
const KEY_NAMES: Record<string, string> = {
  level: "Level",
  environment: "Environment",
  release: "Release",
  handled: "Handled",
  mechanism: "Mechanism",
};
export const tagKeyName = (key: string) => KEY_NAMES[key] ?? key;

/** A tag value as Sentry serializes it (its `TagValueSerializer`). */
export function serializeTagValue(row: TagValueRow) {
  return {
    key: row.key,
    name: row.value,
    value: row.value,
    count: row.count,
    firstSeen: row.firstSeen && isoDate(row.firstSeen),
    lastSeen: row.lastSeen && isoDate(row.lastSeen),
  };
}

/** A tag key with its totals and top values (Sentry's `TagKeySerializer` with `topValues`). */
export function serializeTagKey(summary: TagKeySummary, top: TagValueRow[]) {
  return {
    key: summary.key,
    name: tagKeyName(summary.key),
    totalValues: summary.totalValues,
    uniqueValues: summary.uniqueValues,
    topValues: top.map(serializeTagValue),
  };
}
