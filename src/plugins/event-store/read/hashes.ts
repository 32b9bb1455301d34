import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import { type KeysetBound, keysetPage, type Page } from "../../../http/pagination.js";
import { groupingInfoByEvent } from "./grouping-info.js";
import type { StoredEvent } from "../tables.js";
import type { ReleaseObjects } from "./release-port.js";
import { eventNeighbours } from "./queries.js";
import { serializeEvent } from "./serialize.js";

/** A hash of the issue with its latest event (by event time), if it still has one. */
export interface HashRow {
  hash: string;
  eventRowId: number | null;
  /** Epoch ms of the latest event; 0 without one, so such hashes sort last. */
  latestAt: number;
  tieBreaker: number;
}

/**
 * The keyset tie-breaker of a hash: its first 48 bits as an integer (fits the cursor's offset
 * field). Two hashes whose latest event is the same one, or at the same millisecond, need it;
 * a 48-bit clash among one issue's hashes is not a practical concern. Hashes are MD5 hex, but
 * anything else is hashed first rather than failing.
 */
function tieBreakerOf(hash: string): number {
  const hex = /^[0-9a-f]{12}/i.test(hash) ? hash : createHash("md5").update(hash).digest("hex");
  return Number.parseInt(hex.slice(0, 12), 16);
}

/** Every hash of the issue with its latest event: one index walk per hash (events_by_issue). */
async function hashRows(db: Kysely<Database>, issueId: number): Promise<HashRow[]> {
  const rows = await db
    .selectFrom("issue_hashes as h")
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom("events as e")
          .select(["e.id", "e.timestamp"])
          .whereRef("e.issue_id", "=", "h.issue_id")
          .where(sql<boolean>`${sql.ref("h.hash")} = ANY(${sql.ref("e.hashes")})`)
          .orderBy("e.timestamp", "desc")
          .orderBy("e.id", "desc")
          .limit(1)
          .as("latest"),
      (join) => join.onTrue(),
    )
    .select(["h.hash", "latest.id", "latest.timestamp"])
    .where("h.issue_id", "=", issueId)
    .execute();
  return rows.map((row) => ({
    hash: row.hash,
    eventRowId: row.id === null ? null : Number(row.id),
    latestAt: row.timestamp?.getTime() ?? 0,
    tieBreaker: tieBreakerOf(row.hash),
  }));
}

/** The rows beyond a keyset bound, in its order: an issue has few hashes, so this is done in memory. */
function beyond(rows: HashRow[], bound: KeysetBound): HashRow[] {
  const compare = (a: HashRow, b: { value: number; id: number }) => a.latestAt - b.value || a.tieBreaker - b.id;
  const sign = bound.order === "desc" ? -1 : 1;
  const after = bound.after;
  return rows
    .filter((row) => after === null || sign * compare(row, after) > 0)
    .sort((a, b) => sign * compare(a, { value: b.latestAt, id: b.tieBreaker }))
    .slice(0, bound.limit);
}

/**
 * One page of the issue's hashes (`…/issues/{id}/hashes/`), newest latest event first, ready to
 * serialize; a `latestEvent` is the full event, as the event detail endpoint shows it.
 */
export async function issueHashPage(
  db: Kysely<Database>,
  issueId: number,
  cursor: string | undefined,
  limit: number,
  releasesOf: (rows: StoredEvent[]) => Promise<ReleaseObjects>,
) {
  const all = await hashRows(db, issueId);
  const page: Page<HashRow> = await keysetPage(async (bound) => beyond(all, bound), {
    cursor,
    limit,
    keyOf: (row) => row.latestAt,
    idOf: (row) => row.tieBreaker,
  });
  const ids = page.rows.flatMap((row) => (row.eventRowId === null ? [] : [row.eventRowId]));
  const events = ids.length === 0 ? [] : await db.selectFrom("events").selectAll().where("id", "in", ids).execute();
  const releases = await releasesOf(events);
  // Two index probes per hash for its neighbours, asked together (a page holds at most `limit` hashes).
  const neighbours = await Promise.all(events.map((event) => eventNeighbours(db, event)));
  const byId = new Map(
    events.map((event, index) => [Number(event.id), serializeEvent(event, neighbours[index]!, releases)] as const),
  );
  const groupingInfo = await groupingInfoByEvent(db, ids);
  const serialize = (row: HashRow) => {
    const event = row.eventRowId === null ? undefined : byId.get(row.eventRowId);
    return {
      id: row.hash,
      latestEvent: event ?? null,
      // What produced the hash, per its latest event (docs/grouping.md); null without one.
      groupingInfo: (row.eventRowId === null ? undefined : groupingInfo.get(row.eventRowId)) ?? null,
    };
  };
  return { page, serialize };
}

/** A page of an issue's hashes and how to serialize each (`EventReads.issueHashPage`). */
export type IssueHashPage = Awaited<ReturnType<typeof issueHashPage>>;
