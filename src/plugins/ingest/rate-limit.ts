import { sql, type Kysely } from "kysely";
import { Db } from "../../container/tokens.js";
import type { Database } from "../../db/schema.js";
import type { TaskDefinition } from "../../worker/task.js";
import { RATE_LIMIT_WINDOW_MS } from "./limits.js";

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Where the instances of one schema count what they take of a key's limit. */
export interface QuotaStore {
  /** Adds `amount` to the key's counter for the window starting at `windowStart`; resolves to the counter after. */
  take(keyId: number, windowStart: Date, amount: number): Promise<number>;
}

/** The shared counters in PostgreSQL: one upsert per lease, whichever instance takes it. */
export function databaseQuotaStore(db: () => Kysely<Database>): QuotaStore {
  return {
    async take(keyId, windowStart, amount) {
      const row = await db()
        .insertInto("rate_limit_windows")
        .values({ key_id: keyId, window_start: windowStart, used: amount })
        .onConflict((conflict) =>
          conflict
            .columns(["key_id", "window_start"])
            .doUpdateSet({ used: sql<number>`rate_limit_windows.used + excluded.used` }),
        )
        .returning("used")
        .executeTakeFirstOrThrow();
      return row.used;
    },
  };
}

/**
 * Deletes the counters of ended windows (the current and previous one stay: an instance's clock
 * may run a little behind). A key's window may be up to a day long (`rate_limit_window`), so a
 * counter goes once two of its own key's windows have passed; counters of deleted keys go after
 * two default windows. Idempotent, so several workers running it do no harm.
 */
export const rateLimitCleanupTask: TaskDefinition = {
  id: "ingest.rate-limit-cleanup",
  intervalMs: 5 * 60_000,
  run: async ({ container, now }) => {
    const shortest = new Date(now.getTime() - 2 * RATE_LIMIT_WINDOW_MS);
    await container
      .resolve(Db)
      .deleteFrom("rate_limit_windows as w")
      .where("w.window_start", "<", shortest)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("project_keys as k")
              .select("k.id")
              .whereRef("k.id", "=", "w.key_id")
              .where(
                sql<boolean>`w.window_start >= ${now}::timestamptz - 2 * k.rate_limit_window * interval '1 second'`,
              ),
          ),
        ),
      )
      .execute();
    return false;
  },
};

/** Most of a limit one lease takes: the share one instance may hold unused (see {@link leaseSize}). */
const MAX_LEASE = 1000;

/**
 * Units leased per round trip: 1/20 of the limit (at least 1, at most 1000). Small enough that
 * quota held unused by other instances costs at most 5 % of the limit each; large enough that a
 * busy key costs one query per 20th of its limit, not one per event.
 */
export function leaseSize(limit: number): number {
  return Math.min(MAX_LEASE, Math.max(1, Math.floor(limit / 20)));
}

interface KeyWindow {
  start: number;
  /** The window's length: a key whose window changed starts a fresh one. */
  windowMs: number;
  /** Leased from the shared counter and not spent yet. */
  available: number;
  /** The shared counter reached the limit: nothing more to lease in this window. */
  exhausted: boolean;
  /** The lease in flight; concurrent requests of the key wait for this one. */
  lease?: Promise<void>;
}

/** Beyond this many tracked keys, windows that already ended are dropped (bounds memory). */
const SWEEP_THRESHOLD = 10_000;

/**
 * A fixed-window limit per key (windows aligned to multiples of the key's window length, by
 * default `windowMs`, so `Retry-After` is the time to the next boundary), enforced across every
 * instance sharing a {@link QuotaStore}.
 *
 * Each instance leases quota in chunks ({@link leaseSize}) with one atomic add to the shared
 * counter and spends it locally, so a request waits for the database only when its instance's
 * lease runs out (once per chunk of events, shared by concurrent requests), never per event. A
 * lease is granted only from what the counter had left, so together the instances never accept
 * more than the limit in a window; they may accept less by what others hold leased and unspent:
 * at most `instances × leaseSize(limit)` per window. Once the counter is spent, an instance
 * refuses without asking again until the window ends.
 */
export class SharedRateLimiter {
  readonly #windows = new Map<number, KeyWindow>();

  constructor(
    private readonly windowMs: number,
    private readonly store: QuotaStore,
  ) {}

  /** Takes `cost` units if they fit under `limit` in the current window of `windowMs`; takes nothing otherwise. */
  async consume(
    keyId: number,
    cost: number,
    limit: number,
    nowMs: number,
    windowMs = this.windowMs,
  ): Promise<RateDecision> {
    if (cost <= 0) return { allowed: true };
    const start = nowMs - (nowMs % windowMs);
    for (;;) {
      const window = this.#current(keyId, start, windowMs);
      if (window.available >= cost) {
        window.available -= cost;
        return { allowed: true };
      }
      if (window.exhausted || cost > limit) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)) };
      }
      window.lease ??= this.#lease(keyId, window, limit, cost).finally(() => (window.lease = undefined));
      await window.lease;
    }
  }

  /** Asks the shared counter for a chunk (or what `cost` lacks, if more); keeps what it grants. */
  async #lease(keyId: number, window: KeyWindow, limit: number, cost: number): Promise<void> {
    const amount = Math.max(leaseSize(limit), cost - window.available);
    const total = await this.store.take(keyId, new Date(window.start), amount);
    const granted = Math.max(0, Math.min(amount, limit - (total - amount)));
    window.available += granted;
    if (granted < amount) window.exhausted = true;
  }

  #current(keyId: number, start: number, windowMs: number): KeyWindow {
    const existing = this.#windows.get(keyId);
    if (existing && existing.start === start && existing.windowMs === windowMs) return existing;
    if (!existing && this.#windows.size >= SWEEP_THRESHOLD) this.#sweep(start);
    const fresh: KeyWindow = { start, windowMs, available: 0, exhausted: false };
    this.#windows.set(keyId, fresh);
    return fresh;
  }

  /** Drops windows that have ended by `nowMs` (a window's start plus its own length). */
  #sweep(nowMs: number): void {
    for (const [key, window] of this.#windows) if (window.start + window.windowMs <= nowMs) this.#windows.delete(key);
  }
}
