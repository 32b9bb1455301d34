import { CompiledQuery, type Kysely } from "kysely";
import { quoteIdentifier } from "../../../db/identifiers.js";
import type { Database } from "../../../db/schema.js";
import type { Logger } from "../../../logging/logger.js";

/** What became of events a project's SDK sent (Sentry's outcome names). */
export type Outcome = "accepted" | "filtered" | "rate_limited" | "invalid" | "client_discard";

export interface OutcomeRecord {
  projectId: number;
  /** Sentry's data category: `error`, `transaction`, `attachment`, … */
  category: string;
  outcome: Outcome;
  /** Why, where there is a why (`key_quota`, `queue_full`, an SDK's discard reason); "" otherwise. */
  reason: string;
  quantity: number;
  at: Date;
}

const HOUR_MS = 3_600_000;
/** Distinct (project, hour, category, outcome, reason) counters held between flushes; beyond, new ones are dropped and said. */
const MAX_PENDING_COUNTERS = 50_000;
/** Longest reason kept: SDK client reports are free text from the sender. */
const MAX_REASON_LENGTH = 64;

interface Counter {
  projectId: number;
  hour: number;
  category: string;
  outcome: Outcome;
  reason: string;
  quantity: number;
}

/**
 * Counts outcomes in memory and adds them to `ingest_outcomes` in one upsert per flush: the hot
 * path (an accepted or refused event) only increments a counter. A failed flush keeps its counts
 * for the next one, so an outage delays the statistics without losing them (up to the bound on
 * distinct counters). Counts still in memory when the process dies are lost: they are
 * statistics, never events.
 */
export class OutcomeRecorder {
  #pending = new Map<string, Counter>();
  #overflowed = false;
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  readonly #upsertSql: string;

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly logger: Logger,
    schema: string,
  ) {
    const table = (name: string) => `${quoteIdentifier(schema)}.${name}`;
    // Joined to projects: counts of a project deleted since they were recorded are dropped, not a foreign-key failure of the batch.
    this.#upsertSql = `INSERT INTO ${table("ingest_outcomes")} AS o (organization_id, project_id, hour, category, outcome, reason, quantity)
      SELECT p.organization_id, p.id, to_timestamp(c.hour / 1000.0), c.category, c.outcome, c.reason, c.quantity
      FROM unnest($1::integer[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS c (project_id, hour, category, outcome, reason, quantity)
      JOIN ${table("projects")} p ON p.id = c.project_id
      ON CONFLICT (organization_id, hour, project_id, category, outcome, reason) DO UPDATE SET quantity = o.quantity + excluded.quantity`;
  }

  record(record: OutcomeRecord): void {
    if (record.quantity <= 0) return;
    const hour = record.at.getTime() - (record.at.getTime() % HOUR_MS);
    const reason = record.reason.slice(0, MAX_REASON_LENGTH);
    const key = `${record.projectId}|${hour}|${record.category}|${record.outcome}|${reason}`;
    const counter = this.#pending.get(key);
    if (counter) {
      counter.quantity += record.quantity;
      return;
    }
    if (this.#pending.size >= MAX_PENDING_COUNTERS) {
      if (!this.#overflowed)
        this.logger.warn(
          "faultline: ingest outcome counters are full (database unreachable?); new kinds of outcomes are not counted until the next flush",
        );
      this.#overflowed = true;
      return;
    }
    this.#pending.set(key, {
      projectId: record.projectId,
      hour,
      category: record.category,
      outcome: record.outcome,
      reason,
      quantity: record.quantity,
    });
  }

  /** Flushes every `intervalMs` until {@link close}; the timer never holds the process open. */
  start(intervalMs: number): void {
    this.#timer ??= setInterval(() => void this.#flushQuietly(), intervalMs).unref();
  }

  /** Stops the timer and writes what is left (before the database closes). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#flushQuietly();
  }

  /** One warning when flushing starts failing, one when it recovers: never a line per interval. */
  async #flushQuietly(): Promise<void> {
    try {
      await this.flush();
      if (this.#failing) this.logger.info("faultline: ingest outcomes are being written again");
      this.#failing = false;
    } catch (error) {
      if (!this.#failing)
        this.logger.warn({ err: error }, "faultline: could not write ingest outcomes; keeping the counts and retrying");
      this.#failing = true;
    }
  }

  /** Adds what was counted since the last flush to the table; concurrent calls share one write. */
  flush(): Promise<void> {
    this.#flushing ??= this.#write().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      await this.#upsert([...batch.values()]);
      this.#overflowed = false;
    } catch (error) {
      // Put the counts back (merged with those recorded meanwhile) for the next flush.
      for (const [key, counter] of batch) {
        const current = this.#pending.get(key);
        if (current) current.quantity += counter.quantity;
        else this.#pending.set(key, counter);
      }
      throw error;
    }
  }

  async #upsert(counters: Counter[]): Promise<void> {
    const column = <K extends keyof Counter>(key: K) => counters.map((c) => c[key]);
    await this.db().executeQuery(
      CompiledQuery.raw(this.#upsertSql, [
        column("projectId"),
        column("hour"),
        column("category"),
        column("outcome"),
        column("reason"),
        column("quantity"),
      ]),
    );
  }
}
