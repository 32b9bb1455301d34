import { describe, expect, it } from "vitest";
import { TokenCache, type TokenRecord } from "../../src/auth/token-cache.js";

const record = (id: number): TokenRecord => ({
  id,
  kind: "user",
  user_id: 1,
  organization_id: null,
  installation_id: null,
  scopes: ["org:read"],
  expires_at: null,
});

describe("TokenCache", () => {
  it("answers a remembered token until its TTL has passed, then forgets it", () => {
    const cache = new TokenCache({ ttlMs: 1000, maxEntries: 10 });
    cache.remember("a", record(1), 0, cache.generation());
    expect(cache.lookup("a", 999)?.id).toBe(1);
    expect(cache.lookup("a", 1000)).toBeUndefined();
    expect(cache.lookup("a", 0)).toBeUndefined();
  });

  it("drops a row read before an invalidation (a lookup racing with a revocation)", () => {
    const cache = new TokenCache({ ttlMs: 1000, maxEntries: 10 });
    const readAt = cache.generation();
    cache.invalidate();
    cache.remember("a", record(1), 0, readAt);
    expect(cache.lookup("a", 0)).toBeUndefined();
    cache.remember("a", record(1), 0, cache.generation());
    expect(cache.lookup("a", 0)?.id).toBe(1);
    cache.invalidate();
    expect(cache.lookup("a", 0)).toBeUndefined();
  });

  it("keeps at most maxEntries, dropping the oldest", () => {
    const cache = new TokenCache({ ttlMs: 1000, maxEntries: 2 });
    for (const [hash, id] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      cache.remember(hash, record(id), 0, cache.generation());
    expect(cache.lookup("a", 0)).toBeUndefined();
    expect(cache.lookup("b", 0)?.id).toBe(2);
    expect(cache.lookup("c", 0)?.id).toBe(3);
  });

  it("remembers nothing with ttlMs 0", () => {
    const cache = new TokenCache({ ttlMs: 0, maxEntries: 2 });
    cache.remember("a", record(1), 0, cache.generation());
    expect(cache.lookup("a", 0)).toBeUndefined();
  });
});
