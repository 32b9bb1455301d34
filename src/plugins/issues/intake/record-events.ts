import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../../../db/schema.js";
import type { Issue } from "../tables.js";
import type { TransactionScope } from "../../../db/transaction.js";
import { type EventBus, SYSTEM_ACTOR } from "../../../events/event-bus.js";
import type {
  EventReads,
  IssueBatch,
  IssueGrouping,
  StorableEvent,
  StoredBatchEvent,
} from "../../event-store/index.js";
import type { ProjectSnapshot } from "../domain-events.js";
import { eventSnapshot, issueSnapshot } from "../snapshot.js";
import { type IssueState, stateFromRow } from "../state.js";
import { ITEMS_PER_TURN, yieldToEventLoop } from "../../../worker/yield.js";
import { assignIssues, type IssueAssignment } from "./assign-issues.js";
import { insertFacets, type KnownTagKeys } from "./facets.js";
import { type FoldEvent, type FoldResult, foldEvents } from "./fold.js";

type BatchItem = StorableEvent;
type FreshEvent = StoredBatchEvent;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const floorTo = (date: Date, size: number) => new Date(Math.floor(date.getTime() / size) * size);

/**
 * The issues' side of the event store's write path ({@link IssueGrouping}): each event assigned
 * to its issue (issues created for new fingerprints) and the batch's issues locked, then, once the
 * store has kept the events, counters, stats, facets, automatic transitions, activity and the
 * domain events — set-based wherever a statement can cover the batch.
 */
export class IssueIntake implements IssueGrouping {
  readonly #knownTagKeys: KnownTagKeys = new Set();

  constructor(
    private readonly events: EventBus,
    /** The event store's reads (resolved at each use: the store and this port need each other). */
    private readonly store: () => EventReads,
  ) {}

  async assign(trx: Transaction<Database>, items: readonly BatchItem[], now: Date): Promise<IssueBatch> {
    const assignment = await assignIssues(trx, items, now);
    const issueIds = [...new Set(assignment.issueOf)].sort((a, b) => a - b);
    const rows = await trx
      .selectFrom("issues")
      .selectAll()
      .where("id", "in", issueIds)
      .orderBy("id")
      .forUpdate()
      .execute();
    const deps = { events: this.events, now, store: this.store(), knownTagKeys: this.#knownTagKeys };
    return {
      issueOf: assignment.issueOf,
      record: (scope, stored) => recordEvents(scope, items, [...stored], { ...deps, assignment, rows }),
    };
  }
}

interface RecordDeps {
  events: EventBus;
  now: Date;
  store: EventReads;
  knownTagKeys: KnownTagKeys;
  assignment: IssueAssignment;
  /** The batch's issues, locked, in id order. */
  rows: Issue[];
}

/** Everything a batch's stored events change on their issues, in the batch's transaction. */
async function recordEvents(
  scope: TransactionScope,
  items: readonly BatchItem[],
  fresh: FreshEvent[],
  deps: RecordDeps,
): Promise<void> {
  const { trx } = scope;
  const { assignment, rows } = deps;
  const newUsers = await insertUsers(trx, fresh);
  const releases = releaseRows(fresh, assignment.created, deps.now);
  await createReleases(trx, releases);

  const projects = await loadProjects(trx, items);
  const outcomes = new Map<number, { state: IssueState; fold: FoldResult }>();
  // Grouped once: with many fingerprints a batch touches hundreds of issues.
  const freshByIssue = new Map<number, FreshEvent[]>();
  for (const event of fresh) {
    const group = freshByIssue.get(event.issueId);
    if (group) group.push(event);
    else freshByIssue.set(event.issueId, [event]);
  }
  for (const row of rows) {
    const events = freshByIssue.get(Number(row.id)) ?? [];
    if (events.length === 0) continue;
    outcomes.set(Number(row.id), await foldIssue(trx, deps.store, row, events, newUsers));
  }
  await updateIssues(trx, outcomes);
  await upsertStats(trx, fresh);
  await insertFacets(scope, fresh, deps.knownTagKeys);
  await insertActivities(trx, outcomes, assignment.created, fresh, deps.now);
  const unused = [...assignment.created].filter((id) => !outcomes.has(id));
  const orphans = [...assignment.orphans, ...unused];
  if (orphans.length > 0) await trx.deleteFrom("issues").where("id", "in", orphans).execute();
  await emitDomainEvents(scope, deps, fresh, outcomes, assignment.created, projects);
  await countReleases(trx, releases);
}

/** Records (issue, user) pairs; returns the pairs seen for the first time. */
async function insertUsers(trx: Transaction<Database>, fresh: FreshEvent[]): Promise<Set<string>> {
  const pairs = new Map<string, { issue_id: number; user_key: string; first_seen: Date }>();
  for (const { item, issueId } of fresh) {
    const userKey = item.event.userKey;
    if (userKey && !pairs.has(`${issueId}:${userKey}`))
      pairs.set(`${issueId}:${userKey}`, { issue_id: issueId, user_key: userKey, first_seen: item.event.received });
  }
  if (pairs.size === 0) return new Set();
  const inserted = await trx
    .insertInto("issue_users")
    .values([...pairs.values()])
    .onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing())
    .returning(["issue_id", "user_key"])
    .execute();
  return new Set(inserted.map((row) => `${row.issue_id}:${row.user_key}`));
}

type ReleaseRow = {
  organization_id: number;
  project_id: number;
  version: string;
  date_created: Date;
  first_event: Date;
  last_event: Date;
  new_groups: number;
};

/**
 * Each (project, release) of the batch with its first and last event time and the issues it
 * introduced (a new issue counts for the release of its first event), as the releases API shows;
 * sorted, so that concurrent batches lock release rows in one order (no deadlock).
 */
function releaseRows(fresh: FreshEvent[], created: Set<number>, now: Date): ReleaseRow[] {
  const releases = new Map<string, ReleaseRow>();
  const counted = new Set<number>();
  for (const { item, issueId } of fresh) {
    const version = item.event.release;
    const isNewGroup = created.has(issueId) && !counted.has(issueId);
    if (isNewGroup) counted.add(issueId);
    if (!version) continue;
    const key = `${item.project.id}:${version}`;
    const time = item.event.timestamp;
    const row = releases.get(key) ?? {
      organization_id: item.project.organizationId,
      project_id: item.project.id,
      version,
      date_created: now,
      first_event: time,
      last_event: time,
      new_groups: 0,
    };
    if (time < row.first_event) row.first_event = time;
    if (time > row.last_event) row.last_event = time;
    if (isNewGroup) row.new_groups += 1;
    releases.set(key, row);
  }
  return [...releases.values()].sort(
    (a, b) => a.project_id - b.project_id || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0),
  );
}

/**
 * Creates the batch's releases not seen before, early: folding a resolved issue asks when each
 * release was first seen. Existing rows are left alone and not locked (`DO NOTHING`).
 */
async function createReleases(trx: Transaction<Database>, rows: ReleaseRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto("releases")
    .values(rows.map((row) => ({ ...row, new_groups: 0 })))
    .onConflict((oc) => oc.columns(["project_id", "version"]).doNothing())
    .execute();
}

/**
 * Adds the batch's event times and new issues to its releases. Last in the transaction: a release
 * row is shared by every batch of its project, and its lock, held until commit, would otherwise
 * make concurrent batches (`ingest.digestConcurrency`) wait for each other's whole transaction.
 */
async function countReleases(trx: Transaction<Database>, rows: ReleaseRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto("releases")
    .values(rows)
    .onConflict((oc) =>
      oc.columns(["project_id", "version"]).doUpdateSet({
        first_event: sql`least(releases.first_event, excluded.first_event)`,
        last_event: sql`greatest(releases.last_event, excluded.last_event)`,
        new_groups: sql`releases.new_groups + excluded.new_groups`,
      }),
    )
    .execute();
}

async function foldIssue(
  trx: Transaction<Database>,
  store: EventReads,
  row: Issue,
  events: FreshEvent[],
  newUsers: Set<string>,
) {
  const state = stateFromRow(row);
  const seenUsers = new Set<string>();
  const foldEventsInput: FoldEvent[] = events.map(({ item, issueId }) => {
    const key = `${issueId}:${item.event.userKey}`;
    const newUser = item.event.userKey !== null && newUsers.has(key) && !seenUsers.has(key);
    if (newUser) seenUsers.add(key);
    return { event: item.event, newUser };
  });
  const window =
    state.status === "ignored" ? await snoozeWindowCounts(trx, store, state, events.at(-1)?.item.event.received) : null;
  const releaseDates =
    state.status === "resolved" ? await releaseFirstSeen(trx, state.projectId) : new Map<string, Date>();
  const fold = foldEvents(state, foldEventsInput, { window, releaseFirstSeen: (version) => releaseDates.get(version) });
  return { state, fold };
}

/**
 * Events and distinct users within the snooze's windows (this batch's events included). Only
 * events received after the snooze began count.
 */
async function snoozeWindowCounts(trx: Kysely<Database>, store: EventReads, state: IssueState, now: Date | undefined) {
  const snooze = state.snooze;
  if (!snooze || !now || (!snooze.window && !snooze.userWindow)) return null;
  const since = (minutes: number | null) =>
    new Date(Math.max(new Date(snooze.since).getTime() + 1, now.getTime() - (minutes ?? 0) * 60_000));
  const events = snooze.window ? await store.countIssueEvents(trx, state.id, since(snooze.window), "events") : 0;
  const users = snooze.userWindow ? await store.countIssueEvents(trx, state.id, since(snooze.userWindow), "users") : 0;
  return { events, users };
}

async function releaseFirstSeen(trx: Transaction<Database>, projectId: number): Promise<Map<string, Date>> {
  const rows = await trx
    .selectFrom("releases")
    .select(["version", "date_created"])
    .where("project_id", "=", projectId)
    .execute();
  return new Map(rows.map((row) => [row.version, row.date_created]));
}

/** Writes every touched issue back in one statement (a join against the batch's values as JSON). */
async function updateIssues(trx: Transaction<Database>, outcomes: Map<number, { state: IssueState }>): Promise<void> {
  if (outcomes.size === 0) return;
  const values = [...outcomes].map(([id, { state }]) => ({
    id,
    times_seen: state.timesSeen,
    user_count: state.userCount,
    last_seen: state.lastSeen.toISOString(),
    level: state.level,
    title: state.title,
    culprit: state.culprit,
    message: state.message,
    metadata: state.metadata,
    first_release: state.firstRelease,
    last_release: state.lastRelease,
    status: state.status,
    substatus: state.substatus,
    status_details: state.statusDetails,
    resolution: state.resolution,
    snooze: state.snooze,
    ignore_until: state.snooze?.until ?? null,
  }));
  const field = (name: string) => sql`v.value->${name}`;
  const text = (name: string) => sql`v.value->>${name}`;
  await trx
    .updateTable("issues as i")
    .from(sql`jsonb_array_elements(${JSON.stringify(values)}::jsonb)`.as("v"))
    .set({
      times_seen: sql`(${text("times_seen")})::bigint`,
      user_count: sql`(${text("user_count")})::integer`,
      last_seen: sql`(${text("last_seen")})::timestamptz`,
      level: sql`${text("level")}`,
      title: sql`${text("title")}`,
      culprit: sql`${text("culprit")}`,
      message: sql`${text("message")}`,
      metadata: sql`${field("metadata")}`,
      first_release: sql`${text("first_release")}`,
      last_release: sql`${text("last_release")}`,
      status: sql`${text("status")}`,
      substatus: sql`${text("substatus")}`,
      status_details: sql`${field("status_details")}`,
      resolution: sql`nullif(${field("resolution")}, 'null'::jsonb)`,
      snooze: sql`nullif(${field("snooze")}, 'null'::jsonb)`,
      ignore_until: sql`(${text("ignore_until")})::timestamptz`,
    })
    .whereRef("i.id", "=", sql`(${text("id")})::bigint`)
    .execute();
}

/** Hourly and daily counters, aggregated per bucket so one statement covers the batch. */
async function upsertStats(trx: Transaction<Database>, fresh: FreshEvent[]): Promise<void> {
  for (const [table, size] of [
    ["issue_stats_hourly", HOUR],
    ["issue_stats_daily", DAY],
  ] as const) {
    const counts = new Map<string, { issue_id: number; bucket: Date; count: number }>();
    for (const { item, issueId } of fresh) {
      const bucket = floorTo(item.event.timestamp, size);
      const key = `${issueId}:${bucket.getTime()}`;
      const entry = counts.get(key) ?? { issue_id: issueId, bucket, count: 0 };
      entry.count += 1;
      counts.set(key, entry);
    }
    if (counts.size === 0) continue;
    await trx
      .insertInto(table)
      .values([...counts.values()])
      .onConflict((oc) =>
        oc
          .columns(["issue_id", "bucket"])
          .doUpdateSet((eb) => ({ count: eb(eb.ref(`${table}.count`), "+", eb.ref("excluded.count")) })),
      )
      .execute();
  }
}

/**
 * The activities of a batch, dated when they happen: now, at the digest, not at their event's
 * receipt. With queued ingest a resolve may commit between an event's accept and its digest; the
 * regression the digest then records undid that resolve, so it must not sort below it — nor
 * below anything else already recorded on the issue (the issue is locked here, so whatever
 * committed before is visible): each is dated at the latest of now and the issue's newest activity.
 * `first_seen` keeps its event's receipt (when the issue was first seen), capped at now: the
 * issue is created in this transaction, so every other activity of it is recorded later, at its
 * own now (or, if in this batch, at this now) — none can sort below it.
 */
async function insertActivities(
  trx: Transaction<Database>,
  outcomes: Map<number, { state: IssueState; fold: FoldResult }>,
  created: Set<number>,
  fresh: FreshEvent[],
  now: Date,
): Promise<void> {
  const rows: Array<{
    organization_id: number;
    issue_id: number;
    type: string;
    data: string;
    user_id: null;
    date_created: Date;
  }> = [];
  const changed = [...outcomes].filter(([id, { fold }]) => fold.activities.length > 0 && !created.has(id));
  const latest = await latestActivities(
    trx,
    changed.map(([id]) => id),
  );
  for (const [id, { state, fold }] of outcomes) {
    if (created.has(id)) {
      const received = fresh.find((f) => f.issueId === id)?.item.event.received ?? state.firstSeen;
      rows.push({
        organization_id: state.organizationId,
        issue_id: id,
        type: "first_seen",
        data: "{}",
        user_id: null,
        date_created: received < now ? received : now,
      });
    }
    const at = latest.get(id) ?? now;
    for (const activity of fold.activities) {
      rows.push({
        organization_id: state.organizationId,
        issue_id: id,
        type: activity.type,
        data: JSON.stringify(activity.data),
        user_id: null,
        date_created: at > now ? at : now,
      });
    }
  }
  if (rows.length > 0) await trx.insertInto("issue_activity").values(rows).execute();
}

/** The date of each issue's newest activity (issue_activity_by_issue), for the issues given. */
async function latestActivities(trx: Transaction<Database>, issueIds: number[]): Promise<Map<number, Date>> {
  if (issueIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom("issue_activity")
    .select((eb) => ["issue_id", eb.fn.max("date_created").as("latest")])
    .where("issue_id", "in", issueIds)
    .groupBy("issue_id")
    .execute();
  return new Map(rows.map((row) => [Number(row.issue_id), new Date(row.latest)]));
}

async function loadProjects(
  trx: Transaction<Database>,
  items: readonly BatchItem[],
): Promise<Map<number, ProjectSnapshot>> {
  const ids = [...new Set(items.map((item) => item.project.id))];
  const rows = await trx
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform"])
    .where("id", "in", ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

async function emitDomainEvents(
  scope: TransactionScope,
  deps: { events: EventBus; now: Date },
  fresh: FreshEvent[],
  outcomes: Map<number, { state: IssueState; fold: FoldResult }>,
  created: Set<number>,
  projects: Map<number, ProjectSnapshot>,
): Promise<void> {
  const announced = new Set<number>();
  const seenPerIssue = new Map<number, number>();
  for (const [index, { item, issueId }] of fresh.entries()) {
    // Subscribers (alert rules, webhooks) run per event; a batch of hundreds is given up in slices.
    if (index > 0 && index % ITEMS_PER_TURN === 0) await yieldToEventLoop();
    const outcome = outcomes.get(issueId);
    const project = projects.get(item.project.id);
    if (!outcome || !project) continue;
    const issue = issueSnapshot(outcome.state, project);
    const base = { organizationId: item.project.organizationId, actor: SYSTEM_ACTOR, occurredAt: deps.now };
    const event = eventSnapshot(item.event, issueId);
    const firstEvent = created.has(issueId) && !announced.has(issueId);
    if (firstEvent) {
      announced.add(issueId);
      await deps.events.emit(scope, { ...base, name: "issue.created", payload: { issue, event } });
    }
    const seen = seenPerIssue.get(issueId) ?? 0;
    seenPerIssue.set(issueId, seen + 1);
    const transition = outcome.fold.transitions.find((t) => t.eventIndex === seen)?.reason ?? null;
    await deps.events.emit(scope, {
      ...base,
      name: "error.created",
      payload: { issue, event, firstEvent, transition },
    });
    if (transition)
      await deps.events.emit(scope, { ...base, name: "issue.unresolved", payload: { issue, reason: transition } });
  }
}
