import type { TokenKind } from "../db/schema.js";

/** What authentication needs of an `api_tokens` row. */
export interface TokenRecord {
  id: number;
  kind: TokenKind;
  user_id: number | null;
  organization_id: number | null;
  installation_id: number | null;
  scopes: string[];
  expires_at: Date | null;
}

export interface TokenCacheOptions {
  /** How long a looked-up token is trusted without reading it again; 0 turns the cache off. */
  ttlMs: number;
  /** Most tokens remembered; the oldest entry goes first beyond it. */
  maxEntries: number;
}

interface Entry {
  record: TokenRecord;
  /** Clock time (ms) after which the row is read again. */
  staleAt: number;
}

/**
 * Token hash → token row, for a few seconds, so that a client's burst of requests costs one token
 * lookup. Only found tokens are remembered (a new token works at once everywhere; guessing
 * cannot fill the cache). Whatever revokes or re-scopes tokens in this process calls
 * `invalidate()` after its commit; other processes see the change once their entry is stale.
 *
 * A lookup that began before an invalidation must not put back what it read: `generation()` is
 * taken before the read and `remember` drops the row when an invalidation came in between.
 */
export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  #generation = 0;

  constructor(private readonly options: TokenCacheOptions) {}

  /** The cached row of this hash while fresh at `now` (ms), else undefined. */
  lookup(hash: string, now: number): TokenRecord | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (entry.staleAt > now) return entry.record;
    this.#entries.delete(hash);
    return undefined;
  }

  /** A mark to pass to `remember` for a row read after this call. */
  generation(): number {
    return this.#generation;
  }

  remember(hash: string, record: TokenRecord, now: number, readAt: number): void {
    if (this.options.ttlMs === 0 || readAt !== this.#generation) return;
    if (this.#entries.size >= this.options.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(hash, { record, staleAt: now + this.options.ttlMs });
  }

  /** Forgets every token: called after a commit that deleted or re-scoped any. */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
