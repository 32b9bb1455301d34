export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Window {
  start: number;
  count: number;
}

/** Beyond this many tracked keys, windows that already ended are dropped (bounds memory). */
const SWEEP_THRESHOLD = 10_000;

/**
 * Fixed-window counters in memory, one per key: windows are aligned to multiples of `windowMs`
 * (whole minutes), so `Retry-After` is the time to the next boundary. Per instance and per
 * process, by design: cheap on the hot path, approximate across several processes.
 */
export class FixedWindowRateLimiter {
  readonly #windows = new Map<string | number, Window>();

  constructor(private readonly windowMs: number) {}

  /** Takes `cost` units if they fit under `limit` in the current window; takes nothing otherwise. */
  consume(key: string | number, cost: number, limit: number, nowMs: number): RateDecision {
    if (cost <= 0) return { allowed: true };
    const window = this.#current(key, nowMs);
    if (window.count + cost > limit) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + this.windowMs - nowMs) / 1000)) };
    }
    window.count += cost;
    return { allowed: true };
  }

  #current(key: string | number, nowMs: number): Window {
    const start = nowMs - (nowMs % this.windowMs);
    const existing = this.#windows.get(key);
    if (existing && existing.start === start) return existing;
    if (!existing && this.#windows.size >= SWEEP_THRESHOLD) this.#sweep(start);
    const fresh = { start, count: 0 };
    this.#windows.set(key, fresh);
    return fresh;
  }

  #sweep(currentStart: number): void {
    for (const [key, window] of this.#windows) if (window.start < currentStart) this.#windows.delete(key);
  }
}
