import { describe, expect, it } from "vitest";
import { FixedWindowRateLimiter } from "../../src/plugins/ingest/rate-limit.js";

const MINUTE = 60_000;
const minuteStart = Date.UTC(2026, 10, 22, 10, 33, 0);

describe("FixedWindowRateLimiter", () => {
  it("allows `limit` units per window, then refuses with the seconds left in the window", () => {
    const limiter = new FixedWindowRateLimiter(MINUTE);
    for (let i = 0; i < 3; i++) expect(limiter.consume(1, 1, 3, minuteStart + 1000 * i)).toEqual({ allowed: true });
    expect(limiter.consume(1, 1, 3, minuteStart + 20_500)).toEqual({ allowed: false, retryAfterSeconds: 40 });
    expect(limiter.consume(1, 1, 3, minuteStart + 59_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("starts a fresh count at the next window boundary", () => {
    const limiter = new FixedWindowRateLimiter(MINUTE);
    expect(limiter.consume(1, 1, 1, minuteStart + 59_000)).toEqual({ allowed: true });
    expect(limiter.consume(1, 1, 1, minuteStart + 59_500).allowed).toBe(false);
    expect(limiter.consume(1, 1, 1, minuteStart + MINUTE)).toEqual({ allowed: true });
  });

  it("counts keys separately", () => {
    const limiter = new FixedWindowRateLimiter(MINUTE);
    expect(limiter.consume(1, 1, 1, minuteStart).allowed).toBe(true);
    expect(limiter.consume(2, 1, 1, minuteStart).allowed).toBe(true);
    expect(limiter.consume(1, 1, 1, minuteStart).allowed).toBe(false);
  });

  it("refuses a batch that does not fit without taking any of it, and never charges zero", () => {
    const limiter = new FixedWindowRateLimiter(MINUTE);
    expect(limiter.consume(1, 2, 3, minuteStart).allowed).toBe(true);
    expect(limiter.consume(1, 2, 3, minuteStart).allowed).toBe(false);
    expect(limiter.consume(1, 1, 3, minuteStart).allowed).toBe(true);
    expect(limiter.consume(1, 0, 3, minuteStart)).toEqual({ allowed: true });
    expect(limiter.consume(1, 1, 3, minuteStart).allowed).toBe(false);
  });

  it("refuses everything under a limit of zero", () => {
    expect(new FixedWindowRateLimiter(MINUTE).consume(1, 1, 0, minuteStart)).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });
});
