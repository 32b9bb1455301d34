import { describe, expect, it } from "vitest";
import { ITEMS_PER_TURN, mapInTurns } from "../../src/worker/yield.js";

describe("mapInTurns", () => {
  it("maps in order, letting waiting I/O callbacks run between slices of ITEMS_PER_TURN items", async () => {
    const items = Array.from({ length: ITEMS_PER_TURN * 2 + 50 }, (_, i) => i);
    let mappedSoFar = 0;
    const servedAfter: number[] = [];
    // Stand-ins for a host's requests waiting on the event loop while the batch is mapped.
    setImmediate(() => servedAfter.push(mappedSoFar));
    const mapped = await mapInTurns(items, (item) => {
      mappedSoFar += 1;
      return item * 2;
    });
    expect(mapped).toEqual(items.map((item) => item * 2));
    // Served once the first slice was done, not after the whole batch.
    expect(servedAfter).toEqual([ITEMS_PER_TURN]);
  });

  it("maps a short or empty list without giving up a turn", async () => {
    expect(await mapInTurns([], (item: number) => item)).toEqual([]);
    let served = false;
    setImmediate(() => (served = true));
    expect(await mapInTurns([1, 2, 3], (item) => item + 1)).toEqual([2, 3, 4]);
    expect(served).toBe(false);
  });
});
