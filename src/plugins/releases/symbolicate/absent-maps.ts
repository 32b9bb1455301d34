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
 */
export class AbsentMaps {
  readonly #until = new Map<string, number>();

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

  /** A bundle was assembled here: what it holds must be found from the next event on. */
  clear(): void {
    this.#until.clear();
  }
}

/** The memo key of an event's lookup. */
export function absentMapsKey(projectId: number, release: string | null, dist: string | null, debugIds: Iterable<string>): string {
  return JSON.stringify([projectId, release, dist, [...new Set(debugIds)].sort()]);
}
