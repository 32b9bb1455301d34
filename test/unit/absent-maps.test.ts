import { describe, expect, it } from "vitest";
import { AbsentMaps, absentMapsKey } from "../../src/plugins/releases/symbolicate/absent-maps.js";

describe("AbsentMaps: lookups that found no artifacts, remembered briefly", () => {
  const key = absentMapsKey(1, "web@1.0.0", null, ["b", "a", "a"]);

  it("remembers a miss for its time to live, then asks again", () => {
    const absent = new AbsentMaps(10_000);
    expect(absent.has(key, 0)).toBe(false);
    absent.remember(key, 0);
    expect(absent.has(key, 9_999)).toBe(true);
    expect(absent.has(key, 10_000)).toBe(false);
    expect(absent.has(key, 10_001)).toBe(false);
  });

  it("forgets every miss at once when a bundle is assembled", () => {
    const absent = new AbsentMaps(10_000);
    absent.remember(key, 0);
    absent.clear();
    expect(absent.has(key, 1)).toBe(false);
  });

  it("keys by project, release, dist and the set of debug IDs (order and repeats aside)", () => {
    expect(absentMapsKey(1, "web@1.0.0", null, ["a", "b"])).toBe(key);
    expect(absentMapsKey(2, "web@1.0.0", null, ["a", "b"])).not.toBe(key);
    expect(absentMapsKey(1, "web@1.0.1", null, ["a", "b"])).not.toBe(key);
    expect(absentMapsKey(1, "web@1.0.0", "7", ["a", "b"])).not.toBe(key);
    expect(absentMapsKey(1, "web@1.0.0", null, ["a"])).not.toBe(key);
  });

  it("stays bounded: past 10,000 keys the oldest go first", () => {
    const absent = new AbsentMaps(10_000);
    for (let i = 0; i <= 10_000; i++) absent.remember(`k${i}`, 0);
    expect(absent.has("k0", 1)).toBe(false);
    expect(absent.has("k10000", 1)).toBe(true);
    expect(absent.has("k1", 1)).toBe(true);
  });
});

describe("AbsentMaps.lookup: one query per key for lookups made together", () => {
  const key = absentMapsKey(1, "web@1.0.0", null, []);
  const nothing = () => new Map<string, string>();

  /** A lookup that takes 5 ms and counts its queries; `answer(n)` is the n-th query's result. */
  function countingLookup(answer: (query: number) => Map<string, string>) {
    const counter = { queries: 0 };
    const locate = async () => {
      const query = ++counter.queries;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return answer(query);
    };
    return { counter, locate };
  }

  it("lets concurrent lookups of a key wait for the first; a miss answers them all", async () => {
    const absent = new AbsentMaps(10_000);
    const { counter, locate } = countingLookup(nothing);
    const results = await Promise.all(Array.from({ length: 100 }, () => absent.lookup(key, locate)));
    expect(counter.queries).toBe(1);
    expect(results.filter((result) => result === null)).toHaveLength(99);
    expect(results[0]?.size).toBe(0);
    // …and the miss is remembered for the next batch.
    expect(await absent.lookup(key, locate)).toBeNull();
    expect(counter.queries).toBe(1);
  });

  it("sends the others' own lookups when the first found something (their frames may differ)", async () => {
    const absent = new AbsentMaps(10_000);
    const { counter, locate } = countingLookup(() => new Map([["/app/a.js", "found"]]));
    const results = await Promise.all(Array.from({ length: 3 }, () => absent.lookup(key, locate)));
    expect(counter.queries).toBe(3);
    expect(results.every((result) => result?.get("/app/a.js") === "found")).toBe(true);
    expect(absent.has(key, Date.now())).toBe(false);
  });

  it("does not let a failed lookup answer the others", async () => {
    const absent = new AbsentMaps(10_000);
    const { counter, locate } = countingLookup((query) => {
      if (query === 1) throw new Error("connection lost");
      return nothing();
    });
    const [first, second] = await Promise.allSettled([absent.lookup(key, locate), absent.lookup(key, locate)]);
    expect(first.status).toBe("rejected");
    expect(second).toEqual({ status: "fulfilled", value: nothing() });
    expect(counter.queries).toBe(2);
  });

  it("forgets lookups in flight when a bundle is assembled", async () => {
    const absent = new AbsentMaps(10_000);
    const { counter, locate } = countingLookup(nothing);
    const first = absent.lookup(key, locate);
    absent.clear();
    const second = absent.lookup(key, locate);
    await Promise.all([first, second]);
    expect(counter.queries).toBe(2);
  });
});
