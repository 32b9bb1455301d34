/** How long "nothing uploaded for this" is believed: an upload through another instance (or a
 * `faultline worker` process) maps events digested at most this much later. */
export const ABSENT_MAPS_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * What an event's lookup found nothing for: (project, release, dist, debug IDs). Most events
 * carry a release and `.js` frames while their project has no artifacts at all (every Node
 * service without source maps), and the lookup query cost ~0.9 ms per event at digest; a miss is
 * remembered for {@link ABSENT_MAPS_TTL_MS}, and forgotten at once when this instance assembles a
 * bundle. Bounded: past MAX_ENTRIES the oldest go first.
 *
 * Whether a lookup misses depends on its key alone (nothing for the release, no debug IDs), so
 * the events of one digest batch — processed together — wait for the first lookup of their key
 * instead of each sending the same query: a batch after the memo expired makes one, not hundreds.
 */
export class AbsentMaps {
  readonly #until = new Map<string, number>();
  /** Lookups in flight by key: whether each missed. */
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly ttlMs = ABSENT_MAPS_TTL_MS) {}

  has(key: string, nowMs: number): boolean {
    const until = this.#until.get(key);
    if (until === undefined) return false;
    if (until > nowMs) return true;
    this.#until.delete(key);
    return false;
  }

  remember(key: string, nowMs: number): void {
    this.#until.delete(key);
    this.#until.set(key, nowMs + this.ttlMs);
    if (this.#until.size > MAX_ENTRIES) this.#until.delete(this.#until.keys().next().value as string);
  }

  /**
   * `locate()`'s result, or null when `key` is a miss: remembered, or found so by the lookup of
   * the same key in flight. An empty result (`size` 0) is a miss and remembered.
   */
  async lookup<T extends { size: number }>(key: string, locate: () => Promise<T>): Promise<T | null> {
    if (this.has(key, Date.now())) return null;
    const inFlight = this.#inFlight.get(key);
    if (inFlight !== undefined) return (await inFlight) ? null : locate();
    // Registered before the first await, so that the batch's other events see it.
    const located = locate();
    const missed = located.then(
      (result) => result.size === 0,
      () => false, // a failed lookup says nothing: the others look up themselves
    );
    this.#inFlight.set(key, missed);
    try {
      const result = await located;
      if (result.size === 0) this.remember(key, Date.now());
      return result;
    } finally {
      if (this.#inFlight.get(key) === missed) this.#inFlight.delete(key);
    }
  }

  /** A bundle was assembled here: what it holds must be found from the next event on. */
  clear(): void {
    this.#until.clear();
    this.#inFlight.clear();
  }
}

/** The memo key of an event's lookup. */
export function absentMapsKey(
  projectId: number,
  release: string | null,
  dist: string | null,
  debugIds: Iterable<string>,
): string {
  return JSON.stringify([projectId, release, dist, [...new Set(debugIds)].sort()]);
}
