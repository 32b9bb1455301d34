import type { Clock } from "../clock.js";

/**
 * Reads kept per key for `ttlMs` (what ingest asks on every request: DSN keys, a project's
 * filters, scrubbing and grouping rules, tombstones; an organization's quotas). The pending
 * promise is what is kept, so concurrent misses share one read; a read that fails, or whose result
 * `keep` refuses (an unknown key must not stay unknown for a TTL), is dropped and read again by the
 * next caller. At `maxEntries` the whole map is cleared: cheap, and each entry is read again within
 * a TTL anyway.
 */
export class ExpiringCache<K, V> {
  readonly #entries = new Map<K, { value: Promise<V>; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly keep: (value: V) => boolean = () => true,
  ) {}

  /** The cached value of `key`, else what `read()` gives (kept for `ttlMs` from now). */
  get(key: K, read: () => Promise<V>): Promise<V> {
    const now = this.clock.now().getTime();
    const cached = this.#entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    const value = read();
    this.#entries.set(key, { value, expiresAt: now + this.ttlMs });
    const drop = () => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    };
    value.then((result) => this.keep(result) || drop(), drop);
    return value;
  }

  /** Drops a key: its next `get` reads afresh (after a change committed through this instance). */
  forget(key: K): void {
    this.#entries.delete(key);
  }

  forgetAll(): void {
    this.#entries.clear();
  }
}
