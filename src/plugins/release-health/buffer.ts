import { CompiledQuery, type Kysely } from "kysely";
import { quoteIdentifier } from "../../db/identifiers.js";
import type { Database } from "../../db/schema.js";
import type { Logger } from "../../logging/logger.js";
import type { SeriesKey, SessionContribution } from "./parse.js";

/** Distinct rows (counters, unhealthy sessions, users) held between flushes before `add` waits for a write. */
const MAX_PENDING_ROWS = 20_000;

interface Counter extends SeriesKey {
  sessions: number;
  errored: number;
  abnormal: number;
  crashed: number;
}
interface Unhealthy extends SeriesKey {
  hash: string;
  status: number;
}
interface User extends SeriesKey {
  hash: string;
  crashed: boolean;
}

const seriesKey = (key: SeriesKey) => `${key.projectId}\u0000${key.bucket}\u0000${key.release}\u0000${key.environment}`;

/**
 * Session counts held in memory and written in one statement per flush (as the ingest outcomes
 * are): a session update costs a map lookup on the request path, and a flush writes each
 * bucket, unhealthy session and user once however many updates named it. Every merge is
 * commutative (counters add, a session keeps its worst status, a user's `crashed` is or-ed), so
 * instances sharing a schema flush in any order.
 *
 * What a process loses when it dies is what it held: at most one flush interval of sessions.
 * `close()` writes the rest; a failed flush keeps its rows for the next one, and `add` waits for
 * a write once {@link MAX_PENDING_ROWS} are held, failing (a 503: the SDK sends again) when the
 * database cannot take them, so a long outage refuses sessions instead of dropping them.
 */
export class SessionBuffer {
  #counters = new Map<string, Counter>();
  #unhealthy = new Map<string, Unhealthy>();
  #users = new Map<string, User>();
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #closed = false;
  readonly #upsertSql: string;

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly logger: Logger,
    schema: string,
  ) {
    this.#upsertSql = upsertStatement(schema);
  }

  get pendingRows(): number {
    return this.#counters.size + this.#unhealthy.size + this.#users.size;
  }

  /** Counts the contributions; waits for a flush first when the buffer is full (and throws when that fails). */
  async add(contributions: readonly SessionContribution[]): Promise<void> {
    if (this.pendingRows >= MAX_PENDING_ROWS) await this.flush();
    for (const contribution of contributions) this.#merge(contribution);
    // Closed: no timer flushes any more, so each envelope is written before it is answered.
    if (this.#closed) await this.flush();
  }

  #merge({ key, sessions, errored, abnormal, crashed, unhealthy, user }: SessionContribution): void {
    const series = seriesKey(key);
    if (sessions + errored + abnormal + crashed > 0) {
      const counter = this.#counters.get(series);
      if (counter) {
        counter.sessions += sessions;
        counter.errored += errored;
        counter.abnormal += abnormal;
        counter.crashed += crashed;
      } else this.#counters.set(series, { ...key, sessions, errored, abnormal, crashed });
    }
    if (unhealthy) {
      const id = `${series}\u0000${unhealthy.sessionHash}`;
      const known = this.#unhealthy.get(id);
      if (known) known.status = Math.max(known.status, unhealthy.status);
      else this.#unhealthy.set(id, { ...key, hash: unhealthy.sessionHash, status: unhealthy.status });
    }
    if (user) {
      const id = `${series}\u0000${user.userHash}`;
      const known = this.#users.get(id);
      if (known) known.crashed ||= user.crashed;
      else this.#users.set(id, { ...key, hash: user.userHash, crashed: user.crashed });
    }
  }

  /** Flushes every `intervalMs` until {@link close}; the timer never holds the process open. */
  start(intervalMs: number): void {
    this.#timer ??= setInterval(() => void this.#flushQuietly(), intervalMs).unref();
  }

  /**
   * Stops the timer and writes what is held; what cannot be written is said, with its size, never
   * dropped silently. Sessions added afterwards (requests the ingest plugin finishes while closing)
   * are written as they come.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    try {
      await this.flush();
    } catch (error) {
      this.logger.error(
        { err: error, rows: this.pendingRows },
        "faultline: could not write the last session counts before closing; they are lost",
      );
    }
  }

  async #flushQuietly(): Promise<void> {
    try {
      await this.flush();
      if (this.#failing) this.logger.info("faultline: session counts are being written again");
      this.#failing = false;
    } catch (error) {
      if (!this.#failing)
        this.logger.warn({ err: error }, "faultline: could not write session counts; keeping them and retrying");
      this.#failing = true;
    }
  }

  /**
   * Writes everything counted before the call. Writes run one at a time: a call during a write
   * waits for it, then writes what came meanwhile (what the running write took is not all).
   */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing.catch(() => undefined);
    this.#flushing = this.#write().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #write(): Promise<void> {
    if (this.pendingRows === 0) return;
    const counters = this.#counters;
    const unhealthy = this.#unhealthy;
    const users = this.#users;
    this.#counters = new Map();
    this.#unhealthy = new Map();
    this.#users = new Map();
    try {
      await this.#upsert([...counters.values()], [...unhealthy.values()], [...users.values()]);
    } catch (error) {
      // Back into the buffer, merged with what was counted meanwhile, for the next flush.
      for (const c of counters.values()) this.#merge({ key: c, ...c });
      for (const u of unhealthy.values())
        this.#merge({
          key: u,
          sessions: 0,
          errored: 0,
          abnormal: 0,
          crashed: 0,
          unhealthy: { sessionHash: u.hash, status: u.status },
        });
      for (const u of users.values())
        this.#merge({
          key: u,
          sessions: 0,
          errored: 0,
          abnormal: 0,
          crashed: 0,
          user: { userHash: u.hash, crashed: u.crashed },
        });
      throw error;
    }
  }

  async #upsert(counters: Counter[], unhealthy: Unhealthy[], users: User[]): Promise<void> {
    const keys = (rows: SeriesKey[]) => [
      rows.map((r) => r.projectId),
      rows.map((r) => r.release),
      rows.map((r) => r.environment),
      rows.map((r) => r.bucket),
    ];
    await this.db().executeQuery(
      CompiledQuery.raw(this.#upsertSql, [
        ...keys(counters),
        counters.map((c) => c.sessions),
        counters.map((c) => c.errored),
        counters.map((c) => c.abnormal),
        counters.map((c) => c.crashed),
        ...keys(unhealthy),
        unhealthy.map((u) => u.hash),
        unhealthy.map((u) => u.status),
        ...keys(users),
        users.map((u) => u.hash),
        users.map((u) => u.crashed),
      ]),
    );
  }
}

/**
 * The three upserts in one statement (one round trip, one transaction). Rows are joined to
 * `projects`: counts of a project deleted meanwhile are dropped, not a foreign-key failure of
 * the batch; each insert is ordered by its key so concurrent flushes lock rows in one order.
 */
function upsertStatement(schema: string): string {
  const table = (name: string) => `${quoteIdentifier(schema)}.${name}`;
  const keys = (from: number) =>
    `$${from}::integer[], $${from + 1}::text[], $${from + 2}::text[], $${from + 3}::bigint[]`;
  const bucket = "to_timestamp(r.bucket / 1000.0)";
  return `WITH counters AS (
      INSERT INTO ${table("release_health_buckets")} AS b
        (project_id, organization_id, release, environment, bucket, sessions, errored, abnormal, crashed)
      SELECT p.id, p.organization_id, r.release, r.environment, ${bucket}, r.sessions, r.errored, r.abnormal, r.crashed
      FROM unnest(${keys(1)}, $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
        AS r (project_id, release, environment, bucket, sessions, errored, abnormal, crashed)
      JOIN ${table("projects")} p ON p.id = r.project_id
      ORDER BY 1, 3, 4, 5
      ON CONFLICT (project_id, release, environment, bucket) DO UPDATE SET
        sessions = b.sessions + excluded.sessions, errored = b.errored + excluded.errored,
        abnormal = b.abnormal + excluded.abnormal, crashed = b.crashed + excluded.crashed
    ), unhealthy AS (
      INSERT INTO ${table("release_health_unhealthy_sessions")} AS u
        (project_id, release, environment, bucket, session_hash, status)
      SELECT p.id, r.release, r.environment, ${bucket}, r.hash, r.status
      FROM unnest(${keys(9)}, $13::bigint[], $14::smallint[]) AS r (project_id, release, environment, bucket, hash, status)
      JOIN ${table("projects")} p ON p.id = r.project_id
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (project_id, release, environment, bucket, session_hash) DO UPDATE SET
        status = greatest(u.status, excluded.status)
    )
    INSERT INTO ${table("release_health_users")} AS u (project_id, release, environment, bucket, user_hash, crashed)
    SELECT p.id, r.release, r.environment, ${bucket}, r.hash, r.crashed
    FROM unnest(${keys(15)}, $19::bigint[], $20::boolean[]) AS r (project_id, release, environment, bucket, hash, crashed)
    JOIN ${table("projects")} p ON p.id = r.project_id
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, release, environment, bucket, user_hash) DO UPDATE SET crashed = u.crashed OR excluded.crashed`;
}
