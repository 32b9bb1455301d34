import type { Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { NormalizedEvent, ProjectRef } from "../../event-store/index.js";

export interface IssueAssignment {
  /** The issue of each item, by index. */
  issueOf: number[];
  /** Issues created by this batch (their first event is in it). */
  created: Set<number>;
  /** Issues this batch created but lost to a concurrent creator; delete before commit. */
  orphans: number[];
}

interface Item {
  project: ProjectRef;
  event: NormalizedEvent;
}

const keyOf = (projectId: number, hash: string) => `${projectId}:${hash}`;

/**
 * Maps each event to its issue through `issue_hashes`, creating issues for unseen fingerprints.
 * Exactly one issue per fingerprint even with concurrent writers: the (project, hash) primary
 * key decides. A batch that loses the race for a primary hash drops its new issue and joins the
 * winner's. Lock order (projects, then hashes, both sorted) keeps concurrent batches deadlock-free.
 */
export async function assignIssues(
  trx: Transaction<Database>,
  items: readonly Item[],
  now: Date,
): Promise<IssueAssignment> {
  const known = await lookupHashes(trx, items);
  const issueOf: Array<number | undefined> = items.map(({ project, event }) =>
    event.hashes.map((hash) => known.get(keyOf(project.id, hash))).find((id) => id !== undefined),
  );
  const created = await createIssues(trx, items, issueOf, now);
  const orphans = await claimHashes(trx, items, issueOf as number[], known, created);
  return { issueOf: issueOf as number[], created, orphans };
}

async function lookupHashes(trx: Transaction<Database>, items: readonly Item[]): Promise<Map<string, number>> {
  const projectIds = [...new Set(items.map((item) => item.project.id))];
  const hashes = [...new Set(items.flatMap((item) => item.event.hashes))];
  const rows = await trx
    .selectFrom("issue_hashes")
    .select(["project_id", "hash", "issue_id"])
    .where("project_id", "in", projectIds)
    .where("hash", "in", hashes)
    .execute();
  return new Map(rows.map((row) => [keyOf(row.project_id, row.hash), Number(row.issue_id)]));
}

/** One new issue per unseen primary fingerprint; fills `issueOf` for the items it covers. */
async function createIssues(
  trx: Transaction<Database>,
  items: readonly Item[],
  issueOf: Array<number | undefined>,
  now: Date,
) {
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    if (issueOf[index] !== undefined) return;
    const key = keyOf(item.project.id, item.event.hashes[0] as string);
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const created = new Set<number>();
  if (groups.size === 0) return created;

  const firstItems = [...groups.values()].map((indexes) => indexes[0] as number);
  const numbers = await reserveShortNumbers(
    trx,
    firstItems.map((index) => (items[index] as Item).project.id),
  );
  const rows = firstItems.map((index) => {
    const { project, event } = items[index] as Item;
    return {
      organization_id: project.organizationId,
      project_id: project.id,
      short_number: numbers.get(project.id)?.shift() as number,
      type: event.type,
      title: event.title,
      culprit: event.culprit,
      message: event.message,
      level: event.level,
      platform: event.platform ?? project.platform,
      metadata: JSON.stringify(event.metadata),
      status: "unresolved" as const,
      substatus: "new",
      first_seen: event.timestamp < now ? event.timestamp : now,
      last_seen: event.timestamp,
      first_release: event.release,
      logger: loggerOf(event.payload),
    };
  });
  const inserted = await trx
    .insertInto("issues")
    .values(rows)
    .returning(["id", "project_id", "short_number"])
    .execute();
  const idOf = new Map(inserted.map((row) => [`${row.project_id}:${row.short_number}`, Number(row.id)]));
  [...groups.values()].forEach((indexes, groupIndex) => {
    const row = rows[groupIndex] as (typeof rows)[number];
    const id = idOf.get(`${row.project_id}:${row.short_number}`) as number;
    created.add(id);
    for (const index of indexes) issueOf[index] = id;
  });
  return created;
}

/** Hands out `count` consecutive short numbers per project (projects locked in id order). */
async function reserveShortNumbers(trx: Transaction<Database>, projectIds: number[]): Promise<Map<number, number[]>> {
  const counts = new Map<number, number>();
  for (const id of projectIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const reserved = new Map<number, number[]>();
  for (const [projectId, count] of [...counts].sort((a, b) => a[0] - b[0])) {
    const { next_short_id: next } = await trx
      .updateTable("projects")
      .set((eb) => ({ next_short_id: eb("next_short_id", "+", count) }))
      .where("id", "=", projectId)
      .returning("next_short_id")
      .executeTakeFirstOrThrow();
    reserved.set(
      projectId,
      Array.from({ length: count }, (_, i) => next - count + i),
    );
  }
  return reserved;
}

/**
 * Records every hash not yet known. A new issue whose primary hash was claimed concurrently
 * becomes an orphan: its items move to the winning issue.
 */
async function claimHashes(
  trx: Transaction<Database>,
  items: readonly Item[],
  issueOf: number[],
  known: Map<string, number>,
  created: Set<number>,
): Promise<number[]> {
  const claims = new Map<string, { project_id: number; hash: string; issue_id: number }>();
  items.forEach(({ project, event }, index) => {
    for (const hash of event.hashes) {
      const key = keyOf(project.id, hash);
      if (!known.has(key) && !claims.has(key))
        claims.set(key, { project_id: project.id, hash, issue_id: issueOf[index] as number });
    }
  });
  if (claims.size === 0) return [];
  const sorted = [...claims.values()].sort((a, b) => a.project_id - b.project_id || (a.hash < b.hash ? -1 : 1));
  const won = await trx
    .insertInto("issue_hashes")
    .values(sorted)
    .onConflict((oc) => oc.columns(["project_id", "hash"]).doNothing())
    .returning(["project_id", "hash"])
    .execute();
  const wonKeys = new Set(won.map((row) => keyOf(row.project_id, row.hash)));
  const lost = sorted.filter((claim) => !wonKeys.has(keyOf(claim.project_id, claim.hash)));
  return lost.length === 0 ? [] : adoptWinners(trx, items, issueOf, created, lost);
}

async function adoptWinners(
  trx: Transaction<Database>,
  items: readonly Item[],
  issueOf: number[],
  created: Set<number>,
  lost: Array<{ project_id: number; hash: string; issue_id: number }>,
): Promise<number[]> {
  const winners = await lookupHashes(
    trx,
    lost.map((claim) => ({
      project: { id: claim.project_id, organizationId: 0, platform: null },
      event: { hashes: [claim.hash] } as NormalizedEvent,
    })),
  );
  const orphans: number[] = [];
  for (const claim of lost) {
    const winner = winners.get(keyOf(claim.project_id, claim.hash));
    const isPrimaryOfNewIssue =
      created.has(claim.issue_id) &&
      items.some((item, i) => issueOf[i] === claim.issue_id && item.event.hashes[0] === claim.hash);
    if (winner === undefined || !isPrimaryOfNewIssue) continue;
    issueOf.forEach((id, i) => {
      if (id === claim.issue_id) issueOf[i] = winner;
    });
    created.delete(claim.issue_id);
    orphans.push(claim.issue_id);
  }
  return orphans;
}

/**
 * The event's `logger` as Sentry keeps it on the issue: the first event's, trimmed, at most 64
 * characters (Relay's limit); none, empty or not a string is null.
 */
export function loggerOf(payload: Record<string, unknown>): string | null {
  const logger = typeof payload.logger === "string" ? payload.logger.trim().slice(0, 64) : "";
  return logger === "" ? null : logger;
}
