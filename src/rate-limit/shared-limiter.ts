// A limit shared by every instance on one schema: each leases quota in chunks from a counter
// in the database and spends it locally. Ingest's per-key limits and the quotas plugin's
// per-organization budgets both count this way.

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Where the instances of one schema count what they take of a limit. */
export interface QuotaStore {
  /** Adds `amount` to the counter of `id` for the window starting at `windowStart`; resolves to the counter after. */
  take(id: number, windowStart: Date, amount: number): Promise<number>;
}

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
  /** The limit `exhausted` was found under: a raised limit may lease again. */
  limit: number;
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
    const start = nowMs - (nowMs % windowMs);
    return this.consumeIn(keyId, cost, limit, nowMs, { start, end: start + windowMs });
  }

  /**
   * {@link consume} in a window given by its bounds (epoch milliseconds, `end` exclusive): for
   * windows of uneven length, such as calendar months.
   */
  async consumeIn(
    keyId: number,
    cost: number,
    limit: number,
    nowMs: number,
    bounds: { start: number; end: number },
  ): Promise<RateDecision> {
    if (cost <= 0) return { allowed: true };
    const { start, end } = bounds;
    for (;;) {
      const window = this.#current(keyId, start, end - start);
      if (window.limit !== limit) {
        // A limit changed mid-window (a host raised an organization's quota): ask the counter again.
        window.limit = limit;
        window.exhausted = false;
      }
      if (window.available >= cost) {
        window.available -= cost;
        return { allowed: true };
      }
      if (window.exhausted || cost > limit) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((end - nowMs) / 1000)) };
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
    const fresh: KeyWindow = { start, windowMs, available: 0, exhausted: false, limit: Number.NaN };
    this.#windows.set(keyId, fresh);
    return fresh;
  }

  /** Drops windows that have ended by `nowMs` (a window's start plus its own length). */
  #sweep(nowMs: number): void {
    for (const [key, window] of this.#windows) if (window.start + window.windowMs <= nowMs) this.#windows.delete(key);
  }
}
