import { ExpiringCache } from "../../../cache/expiring-cache.js";
import { type Kysely, sql } from "kysely";
import type { Clock } from "../../../clock.js";
import type { Database } from "../../../db/schema.js";
import { type KeysetBound, keysetCondition } from "../../../http/pagination.js";
import type { TransactionScope } from "../../../db/transaction.js";
import type { Issue, IssueTombstone } from "../tables.js";

/** A tombstone as listed: the discarding user's account beside it (null columns for a token without a user). */
export interface TombstoneWithActor extends IssueTombstone {
  actor_username: string | null;
  actor_name: string | null;
  actor_email: string | null;
}

/** Projects whose tombstoned hashes are held at most; past it the cache starts over. */
const MAX_CACHED_PROJECTS = 10_000;
const NONE: ReadonlySet<string> = new Set();

/**
 * Discarded issues' tombstones (docs/issues.md, "Discard"): recorded when an issue is discarded,
 * listed and removed per project, and read by ingest at accept. Ingest asks on every request, so a
 * project's tombstoned hashes are cached on this object (one per instance) for `ttlMs`: a project
 * without tombstones costs ingest one set lookup. A discard or removal through this instance
 * applies here at once (after its commit), on other instances within `ttlMs`.
 */
export class IssueTombstones {
  readonly #cache: ExpiringCache<number, ReadonlySet<string>>;

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly clock: Clock,
    ttlMs: number,
  ) {
    this.#cache = new ExpiringCache(clock, ttlMs, MAX_CACHED_PROJECTS);
  }

  /** The grouping hashes whose events the project refuses (empty for most projects); concurrent misses share one query. */
  discardedHashes(projectId: number): Promise<ReadonlySet<string>> {
    return this.#cache.get(projectId, () => this.#read(projectId));
  }

  async #read(projectId: number): Promise<ReadonlySet<string>> {
    const rows = await this.db()
      .selectFrom("issue_tombstones")
      .select(sql<string>`unnest(hashes)`.as("hash"))
      .where("project_id", "=", projectId)
      .execute();
    return rows.length === 0 ? NONE : new Set(rows.map((row) => row.hash));
  }

  /** Drops this instance's cached hashes of the projects (after a discard or a removal committed). */
  forget(projectIds: Iterable<number>): void {
    for (const projectId of projectIds) this.#cache.forget(projectId);
  }

  /**
   * Records a tombstone per issue, holding its hashes (read before the deletion releases them),
   * in the discarding transaction; this instance's cache forgets the projects once it commits.
   */
  async record(scope: TransactionScope, rows: readonly Issue[], actorUserId: number | null): Promise<void> {
    const { trx } = scope;
    const ids = rows.map((row) => Number(row.id));
    const hashRows = await trx
      .selectFrom("issue_hashes")
      .select(["issue_id", "hash"])
      .where("issue_id", "in", ids)
      .execute();
    const hashesOf = new Map<number, string[]>();
    for (const { issue_id, hash } of hashRows)
      hashesOf.set(Number(issue_id), [...(hashesOf.get(Number(issue_id)) ?? []), hash]);
    const now = this.clock.now();
    const values = rows
      .filter((row) => hashesOf.has(Number(row.id)))
      .map((row) => ({
        organization_id: row.organization_id,
        project_id: row.project_id,
        previous_issue_id: Number(row.id),
        hashes: sql<string[]>`${sql.val(hashesOf.get(Number(row.id)))}::text[]`,
        level: row.level,
        title: row.title,
        culprit: row.culprit,
        type: row.type,
        metadata: JSON.stringify(row.metadata ?? {}),
        actor_user_id: actorUserId,
        date_added: now,
      }));
    if (values.length > 0) await trx.insertInto("issue_tombstones").values(values).execute();
    const projects = new Set(rows.map((row) => row.project_id));
    scope.afterCommit(() => this.forget(projects));
  }

  /** One page of a project's tombstones, newest first, with who discarded each issue. */
  list(organizationId: number, projectId: number, bound: KeysetBound): Promise<TombstoneWithActor[]> {
    const condition = keysetCondition(bound, "t.date_added", "t.id");
    return this.db()
      .selectFrom("issue_tombstones as t")
      .leftJoin("users as u", "u.id", "t.actor_user_id")
      .selectAll("t")
      .select(["u.username as actor_username", "u.name as actor_name", "u.email as actor_email"])
      .where("t.organization_id", "=", organizationId)
      .where("t.project_id", "=", projectId)
      .$if(condition !== null, (query) => query.where(condition as NonNullable<typeof condition>))
      .orderBy("t.date_added", bound.order)
      .orderBy("t.id", bound.order)
      .limit(bound.limit)
      .execute();
  }

  /** Removes a tombstone: its hashes' events are accepted again (here at once, elsewhere within the TTL). */
  async remove(organizationId: number, projectId: number, tombstoneId: string): Promise<boolean> {
    if (!/^\d{1,15}$/.test(tombstoneId)) return false;
    const removed = await this.db()
      .deleteFrom("issue_tombstones")
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .where("id", "=", Number(tombstoneId))
      .executeTakeFirst();
    if (removed.numDeletedRows === 0n) return false;
    this.forget([projectId]);
    return true;
  }
}
