import type { Kysely, Transaction } from "kysely";
import { sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { TransactionScope } from "../../db/transaction.js";
import type { NormalizedEvent } from "./grouping/types.js";
import { issueHashPage } from "./read/hashes.js";
import {
  type EventOrder,
  type IssueEventFilter,
  issueEdgeEvent,
  issueEventById,
  issueEventPage,
  organizationEventById,
  type ProjectEventFilter,
} from "./read/issue-events.js";
import { countIssueEvents, eventNeighbours, findProjectEvent } from "./read/queries.js";
import { type TagScope, type TagValueSort, tagKeys, tagValues, topValues } from "./read/tags.js";
import { deleteEvents } from "./retention/run.js";
import type { StoredEvent } from "./tables.js";
import { summarizeIssueEvents } from "./read/issue-summary.js";
import { type HashSplit, moveHashEvents, moveIssueEvents } from "./write/reassign.js";
import type { ReleaseObjects } from "./read/release-port.js";
import type { CaptureOptions, EventStore, EventWrites, StorableEvent } from "./tokens.js";

/**
 * The event store on PostgreSQL (or embedded PGlite): the events in the partitioned `events`
 * table, the writes through {@link EventWrites} (the group-commit `EventProcessor`), the reads as
 * plain queries on the instance's database.
 */
export class PostgresEventStore implements EventStore {
  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly writes: EventWrites,
    /** The instance's schema: raw statements name their tables with it. */
    private readonly schema: () => string,
    /** The `release` objects of events (read/releases.ts): the hashes' latest events carry them. */
    private readonly releasesOf: (rows: StoredEvent[]) => Promise<ReleaseObjects> = async () => new Map(),
  ) {}

  normalize(raw: unknown, options?: CaptureOptions): NormalizedEvent {
    return this.writes.normalize(raw, options);
  }

  storeBatch(scope: TransactionScope, events: readonly StorableEvent[]): Promise<void> {
    return this.writes.storeBatch(scope, events);
  }

  findProjectEvent(organizationId: number, projectId: number, eventId: string) {
    return findProjectEvent(this.db(), organizationId, projectId, eventId);
  }

  findOrganizationEvent(organizationId: number, eventId: string) {
    return organizationEventById(this.db(), organizationId, eventId);
  }

  neighbours(event: StoredEvent) {
    return eventNeighbours(this.db(), event);
  }

  issueEventPage(
    filter: IssueEventFilter | ProjectEventFilter,
    order: EventOrder,
    cursor: string | undefined,
    limit: number,
  ) {
    return issueEventPage(this.db(), filter, order, cursor, limit);
  }

  latestEvent(filter: IssueEventFilter, which: EventOrder) {
    return issueEdgeEvent(this.db(), filter, which);
  }

  issueEvent(filter: IssueEventFilter, eventId: string) {
    return issueEventById(this.db(), filter, eventId);
  }

  issueHashPage(issueId: number, cursor: string | undefined, limit: number) {
    return issueHashPage(this.db(), issueId, cursor, limit, this.releasesOf);
  }

  tagKeys(scope: TagScope, key: string | null) {
    return tagKeys(this.db(), scope, key);
  }

  topTagValues(scope: TagScope, key: string | null, perKey: number) {
    return topValues(this.db(), scope, key, perKey);
  }

  tagValues(scope: TagScope, key: string, sort: TagValueSort, offset: number, limit: number) {
    return tagValues(this.db(), scope, key, sort, offset, limit);
  }

  countIssueEvents(db: Kysely<Database>, issueId: number, since: Date, what: "events" | "users") {
    return countIssueEvents(db, issueId, since, what);
  }

  deleteIssueEvents(trx: Transaction<Database>, issueId: number, limit: number) {
    return deleteEvents(trx, this.schema(), sql`issue_id = ${issueId}`, limit);
  }

  moveIssueEvents(trx: Transaction<Database>, fromIssueIds: readonly number[], toIssueId: number) {
    return moveIssueEvents(trx, fromIssueIds, toIssueId);
  }

  moveHashEvents(trx: Transaction<Database>, split: HashSplit) {
    return moveHashEvents(trx, split);
  }

  summarizeIssueEvents(db: Kysely<Database>, issueId: number) {
    return summarizeIssueEvents(db, this.schema(), issueId);
  }
}
