import type { Kysely, Transaction } from "kysely";
import type { InjectionToken } from "tsyringe";
import type { Database } from "../../db/schema.js";
import type { TransactionScope } from "../../db/transaction.js";
import type { Page } from "../../http/pagination.js";
import type { NormalizedEvent } from "./grouping/types.js";
import type { IssueHashPage } from "./read/hashes.js";
import type { EventOrder, IssueEventFilter, ProjectEventFilter } from "./read/issue-events.js";
import type { Neighbours } from "./read/serialize.js";
import type { TagKeySummary, TagScope, TagValueRow, TagValueSort } from "./read/tags.js";
import type { StoredEvent } from "./tables.js";
import type { IssueEventSummary } from "./read/issue-summary.js";
import type { HashSplit } from "./write/reassign.js";

/** The project an event was sent to, as resolved from its DSN key. */
export interface ProjectRef {
  id: number;
  organizationId: number;
  platform: string | null;
}

export interface CaptureOptions {
  receivedAt?: Date;
  /**
   * The event's JSON text as it arrived, when `event` is exactly its parse: its byte length is
   * the event's size, and a queue may keep the text instead of serialising the event again.
   */
  source?: string | null;
}

/**
 * Where ingestion hands events: grouping, issue upsert, counters, automatic transitions and
 * storage, in one committed transaction. Resolves with the event id once committed; throws a
 * 400 `ApiError` for an event that is not a valid event object.
 */
export interface EventSink {
  capture(project: ProjectRef, event: unknown, options?: CaptureOptions): Promise<{ eventId: string }>;
}

export const EventSinkToken: InjectionToken<EventSink> = Symbol("faultline.EventSink");

/** One event for {@link EventWrites.storeBatch}: normalised, with the project it was sent to. */
export interface StorableEvent {
  project: ProjectRef;
  event: NormalizedEvent;
}

/**
 * The two halves of {@link EventSink.capture}, for an ingest path that queues between them:
 * `normalize` (validation and the input repair of docs/issues.md, "Repairing events, never losing
 * them"; throws a 400 `ApiError`) at accept time, and `storeBatch` (grouping, issue upsert,
 * counters, transitions, domain events) later, in the caller's transaction so the caller can
 * commit other work with it.
 */
export interface EventWrites {
  normalize(raw: unknown, options?: CaptureOptions): NormalizedEvent;
  storeBatch(scope: TransactionScope, events: readonly StorableEvent[]): Promise<void>;
}

/** An event found by its id anywhere in an organization, with its project's slug. */
export type OrganizationEvent = StoredEvent & { project_slug: string };

/**
 * The event store's reads: what the issue pages and the events API show of the stored events.
 * Every read filters by organization; the caller has resolved the issue or project in it already.
 * Events of a deleted issue are not found (docs/issues.md, "Deleting").
 */
export interface EventReads {
  /** One event of a project by its event id (32 lowercase hex, see `parseEventId`). */
  findProjectEvent(organizationId: number, projectId: number, eventId: string): Promise<StoredEvent | undefined>;
  /** An event of the organization by its event id; two projects may share one, and the most recent wins. */
  findOrganizationEvent(organizationId: number, eventId: string): Promise<OrganizationEvent | undefined>;
  /** The events just before and after this one in its issue, by (timestamp, id). */
  neighbours(event: StoredEvent): Promise<Neighbours>;
  /** One keyset page of an issue's (or a project's) events, newest or oldest first. */
  issueEventPage(
    filter: IssueEventFilter | ProjectEventFilter,
    order: EventOrder,
    cursor: string | undefined,
    limit: number,
  ): Promise<Page<StoredEvent>>;
  /** The issue's newest or oldest event within the filter (the issue page's latest/oldest event). */
  latestEvent(filter: IssueEventFilter, which: EventOrder): Promise<StoredEvent | undefined>;
  /** One event of the issue by its event id, within the filter. */
  issueEvent(filter: IssueEventFilter, eventId: string): Promise<StoredEvent | undefined>;
  /** One page of the issue's fingerprint hashes, each with its latest event, ready to serialize. */
  issueHashPage(issueId: number, cursor: string | undefined, limit: number): Promise<IssueHashPage>;
  /** The tag keys of the issue's events (or one key), with how many events carry each and how many values it has. */
  tagKeys(scope: TagScope, key: string | null): Promise<TagKeySummary[]>;
  /** The most seen values of each key (or one), at most `perKey` per key. */
  topTagValues(scope: TagScope, key: string | null, perKey: number): Promise<Map<string, TagValueRow[]>>;
  /** The values of one key, ordered, `limit` from `offset`. */
  tagValues(scope: TagScope, key: string, sort: TagValueSort, offset: number, limit: number): Promise<TagValueRow[]>;
  /**
   * Events (or distinct users) of an issue received at or after `since`, read through `db`: the
   * caller's transaction when the count must include the events it has just stored.
   */
  countIssueEvents(db: Kysely<Database>, issueId: number, since: Date, what: "events" | "users"): Promise<number>;
  /** Deletes up to `limit` of an issue's events (with their ids, which may then be sent again); returns how many. */
  deleteIssueEvents(trx: Transaction<Database>, issueId: number, limit: number): Promise<number>;
}

/**
 * Regrouping stored events, for an issue merge and unmerge (docs/issues.md, "Merging and
 * unmerging"): each runs in the caller's transaction, which also moves the issues' own rows.
 */
export interface EventRegrouping {
  /** Moves every event of `fromIssueIds` to `toIssueId` (a merge); returns how many moved. */
  moveIssueEvents(trx: Transaction<Database>, fromIssueIds: readonly number[], toIssueId: number): Promise<number>;
  /** Moves the events grouped by the split hashes to the new issue (an unmerge); returns how many moved. */
  moveHashEvents(trx: Transaction<Database>, split: HashSplit): Promise<number>;
  /** What an issue's stored events add up to (counters, facets, stats buckets), read through `db`. */
  summarizeIssueEvents(db: Kysely<Database>, issueId: number): Promise<IssueEventSummary>;
}

/**
 * The event store: the seam between the events (their normalisation, storage and reads) and
 * triage (issues, their state and workflow), so that an implementation other than PostgreSQL's
 * (a columnar store for hosts that outgrow it) can be put behind {@link EventStoreToken} without
 * touching the issues plugin. `test/integration/event-store.test.ts` is the conformance suite an
 * implementation runs.
 */
export interface EventStore extends EventWrites, EventReads, EventRegrouping {}

export const EventStoreToken: InjectionToken<EventStore> = Symbol("faultline.EventStore");
export type { NormalizedEvent } from "./grouping/types.js";

/**
 * An extension point of event storage: a plugin rewrites an event's payload before it is grouped
 * and stored (source-map symbolication, for instance). Registered under
 * {@link EventPayloadProcessorToken} (several may be; they run in registration order). Runs at
 * store time — for queued ingest in the digest's transaction, whose handle is `db`, so the
 * processor reads with it (an embedded database has one connection). Returns the new payload, or
 * null to leave the event unchanged; it must not throw for bad data (record it in `errors`).
 */
export interface EventPayloadProcessor {
  readonly id: string;
  process(input: {
    db: Kysely<Database>;
    project: ProjectRef;
    payload: Record<string, unknown>;
  }): Promise<Record<string, unknown> | null>;
}

export const EventPayloadProcessorToken: InjectionToken<EventPayloadProcessor> = Symbol(
  "faultline.EventPayloadProcessor",
);

/** An event a batch stored (not a repeat of one stored before), with the issue it was grouped into. */
export interface StoredBatchEvent {
  item: StorableEvent;
  issueId: number;
}

/**
 * A batch's issues, assigned and locked by {@link IssueGrouping.assign} until the transaction ends.
 */
export interface IssueBatch {
  /** The issue of each event of the batch, by index. */
  readonly issueOf: readonly number[];
  /**
   * Folds the events the store kept (duplicates by event id dropped) into their issues: counters,
   * facets, automatic transitions, activity and the domain events, in the batch's transaction.
   */
  record(scope: TransactionScope, stored: readonly StoredBatchEvent[]): Promise<void>;
}

/**
 * The port through which the event store's write path reaches the issues without importing them:
 * the issues plugin implements it and registers it under {@link IssueGroupingToken}. The store
 * calls `assign` (fingerprints → issues, new issues created, rows locked), stores the events,
 * then `record`s them, all in one transaction (docs/plugins.md, "The event store").
 */
export interface IssueGrouping {
  assign(trx: Transaction<Database>, events: readonly StorableEvent[], now: Date): Promise<IssueBatch>;
}

export const IssueGroupingToken: InjectionToken<IssueGrouping> = Symbol("faultline.IssueGrouping");

/** What {@link IssueRetention.expire} did in one retention slice. */
export interface IssueRetentionReport {
  issuesExpired: number;
  statsDeleted: number;
  /** A batch was full: the slice should run again. */
  more: boolean;
}

/**
 * The issues' part of a retention slice, run by the event store's retention in the same
 * transaction, after the expired events are deleted and before their partitions are dropped:
 * issues left without events hidden, counters past retention deleted.
 */
export interface IssueRetention {
  expire(
    trx: Transaction<Database>,
    settings: { schema: string; defaultDays: number; now: Date },
  ): Promise<IssueRetentionReport>;
}

export const IssueRetentionToken: InjectionToken<IssueRetention> = Symbol("faultline.IssueRetention");
