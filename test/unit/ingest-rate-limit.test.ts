import { describe, expect, it } from "vitest";
import { leaseSize, type QuotaStore, SharedRateLimiter } from "../../src/plugins/ingest/limits/rate-limit.js";
import { memoryQuotaStore } from "../helpers/memory-quota.js";

const MINUTE = 60_000;
const minuteStart = Date.UTC(2026, 10, 22, 10, 33, 0);

const limiter = (store: QuotaStore = memoryQuotaStore()) => new SharedRateLimiter(MINUTE, store);

describe("SharedRateLimiter", () => {
  it("allows `limit` units per window, then refuses with the seconds left in the window", async () => {
    const one = limiter();
    for (let i = 0; i < 3; i++) expect(await one.consume(1, 1, 3, minuteStart + 1000 * i)).toEqual({ allowed: true });
    expect(await one.consume(1, 1, 3, minuteStart + 20_500)).toEqual({ allowed: false, retryAfterSeconds: 40 });
    expect(await one.consume(1, 1, 3, minuteStart + 59_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("starts a fresh count at the next window boundary", async () => {
    const one = limiter();
    expect(await one.consume(1, 1, 1, minuteStart + 59_000)).toEqual({ allowed: true });
    expect((await one.consume(1, 1, 1, minuteStart + 59_500)).allowed).toBe(false);
    expect(await one.consume(1, 1, 1, minuteStart + MINUTE)).toEqual({ allowed: true });
  });

  it("uses the key's own window when given: aligned to its length, Retry-After to its end", async () => {
    const one = limiter();
    const HOUR = 60 * MINUTE;
    const hourStart = minuteStart - (minuteStart % HOUR);
    expect((await one.consume(1, 1, 1, minuteStart, HOUR)).allowed).toBe(true);
    // A minute later, still the same hour: refused until the hour ends.
    const later = minuteStart + MINUTE;
    expect(await one.consume(1, 1, 1, later, HOUR)).toEqual({
      allowed: false,
      retryAfterSeconds: (hourStart + HOUR - later) / 1000,
    });
    expect((await one.consume(1, 1, 1, hourStart + HOUR, HOUR)).allowed).toBe(true);
  });

  it("a limit raised mid-window lets more in at once; the units already taken still count", async () => {
    const one = limiter();
    for (let i = 0; i < 3; i++) expect((await one.consume(1, 1, 3, minuteStart + i)).allowed).toBe(true);
    expect((await one.consume(1, 1, 3, minuteStart + 10)).allowed).toBe(false);
    // The refused ask took its unit in the shared counter too: 4 of 6 are spent.
    expect((await one.consume(1, 1, 6, minuteStart + 20)).allowed).toBe(true);
    expect((await one.consume(1, 1, 6, minuteStart + 30)).allowed).toBe(true);
    expect((await one.consume(1, 1, 6, minuteStart + 40)).allowed).toBe(false);
  });

  it("counts keys separately", async () => {
    const one = limiter();
    expect((await one.consume(1, 1, 1, minuteStart)).allowed).toBe(true);
    expect((await one.consume(2, 1, 1, minuteStart)).allowed).toBe(true);
    expect((await one.consume(1, 1, 1, minuteStart)).allowed).toBe(false);
  });

  it("refuses a batch that does not fit without taking any of it, and never charges zero", async () => {
    const one = limiter();
    expect((await one.consume(1, 2, 3, minuteStart)).allowed).toBe(true);
    expect((await one.consume(1, 2, 3, minuteStart)).allowed).toBe(false);
    expect((await one.consume(1, 1, 3, minuteStart)).allowed).toBe(true);
    expect(await one.consume(1, 0, 3, minuteStart)).toEqual({ allowed: true });
    expect((await one.consume(1, 1, 3, minuteStart)).allowed).toBe(false);
  });

  it("refuses everything under a limit of zero", async () => {
    expect(await limiter().consume(1, 1, 0, minuteStart)).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });

  it("enforces one limit across instances: never more than the limit, at most one lease each below it", async () => {
    const store = memoryQuotaStore();
    const instances = [limiter(store), limiter(store), limiter(store)];
    const limit = 200;
    let accepted = 0;
    for (let i = 0; i < 3 * limit; i++) {
      const decision = await (instances[i % instances.length] as SharedRateLimiter).consume(
        7,
        1,
        limit,
        minuteStart + i,
      );
      if (decision.allowed) accepted++;
    }
    expect(accepted).toBeLessThanOrEqual(limit);
    expect(accepted).toBeGreaterThan(limit - instances.length * leaseSize(limit));
  });

  it("asks the store once per lease, shared by concurrent requests, and not at all once the window is spent", async () => {
    const store = memoryQuotaStore();
    const one = limiter(store);
    const decisions = await Promise.all(Array.from({ length: 10 }, () => one.consume(1, 1, 200, minuteStart)));
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    expect(store.takes).toBe(1); // leaseSize(200) = 10
    for (let i = 0; i < 300; i++) await one.consume(1, 1, 200, minuteStart + 1);
    const spent = store.takes;
    await one.consume(1, 1, 200, minuteStart + 2);
    expect(store.takes).toBe(spent);
  });
});
