import { describe, expect, it } from "vitest";
import { QueueDepthGauge } from "../../src/plugins/ingest/queue/depth.js";

describe("QueueDepthGauge", () => {
  it("admits up to the bound, then reports full without a recount for a second", async () => {
    let counts = 0;
    const gauge = new QueueDepthGauge(3, async () => (counts++, 0));
    expect(await gauge.admit(2, 1_000)).toBe(true);
    expect(gauge.isFull(1_000)).toBe(false);
    expect(await gauge.admit(2, 1_100)).toBe(false);
    expect(await gauge.admit(1, 1_200)).toBe(true);
    expect(gauge.isFull(1_200)).toBe(true);
    expect(counts).toBe(1);
  });

  it("answers not full on a stale estimate, so that admit recounts what other processes digested", async () => {
    let depth = 0;
    const gauge = new QueueDepthGauge(2, async () => depth);
    expect(await gauge.admit(2, 0)).toBe(true);
    expect(gauge.isFull(999)).toBe(true);
    depth = 0; // digested elsewhere
    expect(gauge.isFull(1_000)).toBe(false);
    expect(await gauge.admit(1, 1_000)).toBe(true);
    expect(gauge.isFull(1_000)).toBe(false);
  });
});
