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
