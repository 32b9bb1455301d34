import type { Transaction } from "kysely";
import type { ResolvedActor } from "../../../auth/actor.js";
import type { Database } from "../../../db/schema.js";
import { badRequest } from "../../../http/errors.js";
import type { EventUser, StoredEvent } from "../../event-store/index.js";
import type { EventSnapshot } from "../domain-events.js";
import type { Issue } from "../tables.js";

type Trx = Transaction<Database>;

/**
 * The issue's hashes, after checking the split: every hash must be one of the issue's (a hash of
 * another issue, or none at all, is named in the 400), and at least one must remain.
 */
export async function checkSplit(trx: Trx, source: Issue, hashes: readonly string[]): Promise<string[]> {
  const held = (
    await trx.selectFrom("issue_hashes").select("hash").where("issue_id", "=", Number(source.id)).execute()
  ).map((row) => row.hash);
  const unknown = hashes.filter((hash) => !held.includes(hash));
  if (unknown.length > 0)
    throw badRequest(`Not a hash of issue ${source.id}: ${unknown.join(", ")}`, {
      id: unknown.map((hash) => `${hash} is not a hash of this issue`),
    });
  if (new Set(hashes).size >= held.length)
    throw badRequest("Cannot unmerge every hash of an issue: nothing would remain in it", {
      id: ["leave at least one of the issue's hashes"],
    });
  return held;
}

/** The new issue an unmerge splits off: the source's kind, a fresh short id; its counters are written from its events. */
export async function createSplitIssue(trx: Trx, source: Issue, now: Date): Promise<Issue> {
  const { next_short_id: next } = await trx
    .updateTable("projects")
    .set((eb) => ({ next_short_id: eb("next_short_id", "+", 1) }))
    .where("id", "=", source.project_id)
    .returning("next_short_id")
    .executeTakeFirstOrThrow();
  return trx
    .insertInto("issues")
    .values({
      organization_id: source.organization_id,
      project_id: source.project_id,
      short_number: next - 1,
      type: source.type,
      title: source.title,
      culprit: source.culprit,
      message: source.message,
      level: source.level,
      platform: source.platform,
      metadata: JSON.stringify(source.metadata),
      status: "unresolved",
      substatus: "new",
      first_seen: now,
      last_seen: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Sentry's pair: `unmerge_source` on the new issue (where it came from), `unmerge_destination` on the source. */
export async function recordUnmergeActivities(
  trx: Trx,
  split: { source: Issue; created: Issue; hashes: readonly string[] },
  actor: ResolvedActor,
  now: Date,
): Promise<void> {
  const { source, created, hashes } = split;
  const row = (issue: Issue, type: string, data: Record<string, unknown>) => ({
    organization_id: issue.organization_id,
    issue_id: Number(issue.id),
    type,
    data: JSON.stringify({ fingerprints: [...hashes], ...data }),
    user_id: actor.userId,
    date_created: now,
  });
  await trx
    .insertInto("issue_activity")
    .values([
      row(created, "unmerge_source", { source_id: String(source.id) }),
      row(source, "unmerge_destination", { destination_id: String(created.id) }),
    ])
    .execute();
}

/** A stored event as `issue.created` carries it (the metadata is the issue's: events do not keep their own). */
export function storedEventSnapshot(event: StoredEvent, issue: Issue): EventSnapshot {
  const user = event.payload.user;
  return {
    eventId: event.event_id,
    issueId: Number(issue.id),
    title: event.title,
    culprit: event.culprit,
    message: event.message,
    level: event.level,
    platform: event.platform,
    environment: event.environment,
    release: event.release,
    timestamp: event.timestamp,
    received: event.received,
    tags: event.tags,
    user: user && typeof user === "object" ? (user as EventUser) : null,
    location: event.location,
    metadata: issue.metadata,
    payload: event.payload,
  };
}
