import { describe, expect, it } from "vitest";
import { ExpiringCache } from "../../src/cache/expiring-cache.js";

describe("ExpiringCache", () => {
  let now = 0;
  const clock = { now: () => new Date(now) };

  it("shares one read between concurrent misses and keeps it for the TTL", async () => {
    const cache = new ExpiringCache<string, number>(clock, 1_000, 10);
    let reads = 0;
    const read = async () => ++reads;
    expect(await Promise.all([cache.get("a", read), cache.get("a", read)])).toEqual([1, 1]);
    now += 999;
    expect(await cache.get("a", read)).toBe(1);
    now += 1;
    expect(await cache.get("a", read)).toBe(2);
    cache.forget("a");
    expect(await cache.get("a", read)).toBe(3);
  });

  it("drops a failed read and a value `keep` refuses, so the next caller reads again", async () => {
    const cache = new ExpiringCache<string, number | null>(clock, 1_000, 10, (value) => value !== null);
    await expect(cache.get("a", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("a", async () => 1)).toBe(1);
    expect(await cache.get("b", async () => null)).toBeNull();
    await Promise.resolve();
    expect(await cache.get("b", async () => 2)).toBe(2);
  });

  it("clears everything at its size limit", async () => {
    const cache = new ExpiringCache<number, number>(clock, 1_000, 2);
    await cache.get(1, async () => 1);
    await cache.get(2, async () => 2);
    await cache.get(3, async () => 3);
    expect(await cache.get(1, async () => 10)).toBe(10);
    expect(await cache.get(3, async () => 30)).toBe(3);
  });
});
