/** How often the estimate is corrected by counting the table (other processes accept and digest too). */
const RECOUNT_INTERVAL_MS = 1_000;

/**
 * The queue's depth as this process knows it, for back-pressure: the table's row count, taken at
 * most once a second (one shared query), plus what this process accepted since, minus what it
 * digested since. Approximate across processes by design (each sees the others' work at the next
 * recount): a hard bound would need a counter row every accept contends on.
 */
export class QueueDepthGauge {
  #estimate = 0;
  #countedAt = Number.NEGATIVE_INFINITY;
  #recount: Promise<void> | undefined;

  constructor(
    private readonly maxDepth: number,
    private readonly count: () => Promise<number>,
  ) {}

  /** Reserves room for `events`; false (nothing reserved) when they would pass the bound. */
  async admit(events: number, nowMs: number): Promise<boolean> {
    if (events === 0) return true;
    if (nowMs - this.#countedAt >= RECOUNT_INTERVAL_MS) {
      await (this.#recount ??= this.#takeCount(nowMs).finally(() => (this.#recount = undefined)));
    }
    if (this.#estimate + events > this.maxDepth) return false;
    this.#estimate += events;
    return true;
  }

  /**
   * Whether the queue is at its bound by an estimate less than a second old: cheap enough to ask
   * before reading a request. A stale estimate answers false, so that the request reaches
   * {@link admit}, which recounts — other processes may have digested meanwhile.
   */
  isFull(nowMs: number): boolean {
    return nowMs - this.#countedAt < RECOUNT_INTERVAL_MS && this.#estimate >= this.maxDepth;
  }

  /** Events that left the queue (digested here) or never entered it (their append failed). */
  release(events: number): void {
    this.#estimate = Math.max(0, this.#estimate - events);
  }

  async #takeCount(nowMs: number): Promise<void> {
    this.#estimate = await this.count();
    this.#countedAt = nowMs;
  }
}
