import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { EventLoopDelayMonitor } from "../../src/plugins/ingest/limits/overload.js";

/** A histogram the test fills by hand (values in ns, as node's) and a clock it moves. */
function fakes() {
  const state = { now: 0, maxNs: 0, enabled: false, resets: 0 };
  const histogram = {
    get max() {
      return state.maxNs;
    },
    enable: () => void (state.enabled = true),
    disable: () => void (state.enabled = false),
    reset: () => void (state.resets++, (state.maxNs = 0)),
  };
  return { state, histogram, now: () => state.now };
}

const ms = (value: number) => value * 1e6;

describe("EventLoopDelayMonitor", () => {
  it("is overloaded for the window after one whose worst delay (minus the resolution) passed the bound", () => {
    const { state, histogram, now } = fakes();
    const monitor = new EventLoopDelayMonitor(30, { histogram, now, intervalMs: 100, resolutionMs: 10 });
    monitor.start();
    expect(monitor.overloaded).toBe(false);

    state.now = 100;
    state.maxNs = ms(40); // a 30 ms delay: at the bound, not past it
    monitor.endWindow();
    expect(monitor.delayMs).toBe(30);
    expect(monitor.overloaded).toBe(false);

    state.maxNs = ms(45);
    state.now = 200;
    monitor.endWindow();
    expect(monitor.delayMs).toBe(35);
    expect(monitor.overloaded).toBe(true);

    // The histogram was reset: a quiet window ends the overload.
    state.now = 300;
    state.maxNs = ms(11);
    monitor.endWindow();
    expect(monitor.overloaded).toBe(false);
    monitor.stop();
  });

  it("does not judge a window that ended too early (node's stale loop time after a block): it goes on, the verdict holds", () => {
    const { state, histogram, now } = fakes();
    const monitor = new EventLoopDelayMonitor(50, { histogram, now, intervalMs: 100, resolutionMs: 10 });
    monitor.start();
    state.now = 400; // a 300 ms block
    state.maxNs = ms(310);
    monitor.endWindow();
    expect(monitor.overloaded).toBe(true);
    state.now = 414; // the interval fired again right after the block: 14 ms of gap
    monitor.endWindow();
    expect(monitor.overloaded).toBe(true);
    expect(state.resets).toBe(2); // start, first window: the short one was not reset
    state.maxNs = ms(300); // the next block, in the same (continued) window
    state.now = 520;
    monitor.endWindow();
    expect(monitor.delayMs).toBe(290);
    state.maxNs = ms(12);
    state.now = 620;
    monitor.endWindow();
    expect(monitor.overloaded).toBe(false);
    monitor.stop();
  });

  it("an empty window (no samples) is no delay; stop disables the histogram and clears the verdict", () => {
    const { state, histogram, now } = fakes();
    const monitor = new EventLoopDelayMonitor(20, { histogram, now, intervalMs: 100, resolutionMs: 10 });
    monitor.start();
    monitor.start(); // idempotent
    expect(state.enabled).toBe(true);
    state.now = 100;
    monitor.endWindow();
    expect(monitor.delayMs).toBe(0);
    state.now = 200;
    state.maxNs = ms(500);
    monitor.endWindow();
    expect(monitor.overloaded).toBe(true);
    monitor.stop();
    expect(state.enabled).toBe(false);
    expect(monitor.overloaded).toBe(false);
  });

  it("on node's real histogram, sees all of a 150 ms block while other timers run, then that it ended", async () => {
    const monitor = new EventLoopDelayMonitor(100);
    // JS timers due before the histogram's own (a server always has some) run first after a block.
    const busyTimers = setInterval(() => undefined, 5);
    monitor.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      const until = performance.now() + 150;
      while (performance.now() < until); // the block, straddling the end of the first window
      await waitFor(() => monitor.delayMs > 0, 1_000);
      // More than the window timer's lateness (about 80 ms here): the histogram's record of the whole block.
      expect(monitor.delayMs).toBeGreaterThan(130);
      expect(monitor.overloaded).toBe(true);
      // Without a block, a window on a loaded machine stays far below 100 ms.
      await waitFor(() => !monitor.overloaded, 3_000);
    } finally {
      clearInterval(busyTimers);
      monitor.stop();
    }
  });

  it("on node's real histogram, sees a block that starts right after a window closed (before the histogram's first tick)", async () => {
    const real = monitorEventLoopDelay({ resolution: 10 });
    let blockAfterReset = false;
    const histogram = {
      get max() {
        return real.max;
      },
      enable: () => real.enable(),
      disable: () => real.disable(),
      reset: () => {
        real.reset();
        if (!blockAfterReset) return;
        blockAfterReset = false;
        setImmediate(() => {
          const until = performance.now() + 150;
          while (performance.now() < until); // the block, in the turn the window closed in
        });
      },
    };
    const monitor = new EventLoopDelayMonitor(100, { histogram });
    monitor.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      blockAfterReset = true; // at the end of the first window
      await waitFor(() => monitor.overloaded, 1_000);
      expect(monitor.delayMs).toBeGreaterThan(130);
    } finally {
      monitor.stop();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
