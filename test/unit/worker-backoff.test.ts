import "reflect-metadata";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { createInstanceContainer } from "../../src/container/container.js";
import type { Logger } from "../../src/logging/logger.js";
import { Worker } from "../../src/worker/worker.js";
import { sleep, waitFor } from "../helpers/wait.js";

const lostConnection = () =>
  Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });

function recordingLogger() {
  const lines: Array<{ level: string; message: string }> = [];
  const record = (level: string) => (_details: unknown, message?: string) =>
    void lines.push({ level, message: message ?? "" });
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  return { logger, lines };
}

const workers: Worker[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
});

describe("the worker during a database outage", () => {
  it("keeps running a failing task, further and further apart, warns (not errors) about an outage, and runs at once when woken", async () => {
    let failing = true;
    const runs: number[] = [];
    const { logger, lines } = recordingLogger();
    const worker = new Worker(
      [
        {
          id: "outage",
          intervalMs: 20,
          run: async () => {
            runs.push(Date.now());
            if (failing) throw lostConnection();
            return false;
          },
        },
      ],
      { container: createInstanceContainer(), clock: systemClock, logger, ready: async () => undefined },
    );
    workers.push(worker);
    worker.start();
    await sleep(700);
    // Every 20 ms that would be ~35 runs; doubling from 40 ms it is 20+40+80+160+320 ms: 5 or 6.
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeLessThanOrEqual(7);
    const gaps = runs.slice(1).map((at, i) => at - (runs[i] as number));
    expect(gaps.at(-1)).toBeGreaterThan(gaps[0] as number);
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
    // One line for the streak, not one per failed run (#17: no log line per tick during an outage).
    expect(runs.length).toBeGreaterThan(1);
    expect(lines).toEqual([
      { level: "warn", message: "faultline: background task could not reach the database; retrying later" },
    ]);

    // The database is back and a wake arrives (a LISTEN connection restored): it runs at once,
    // and then at its own interval again.
    failing = false;
    const before = runs.length;
    // Backed off, the next run is hundreds of milliseconds away: these bounds tell a wake from it.
    worker.wake("outage");
    await waitFor(async () => runs.length > before, 250, "a run right after the wake");
    await waitFor(async () => runs.length >= before + 4, 600, "runs at the 20 ms interval again");
    // The end of the streak is said once.
    expect(lines.slice(1)).toEqual([{ level: "info", message: "faultline: background task recovered" }]);
  });

  it("any other failure is still logged as an error", async () => {
    const { logger, lines } = recordingLogger();
    const worker = new Worker(
      [{ id: "bug", intervalMs: 1000, run: async () => Promise.reject(new TypeError("x is undefined")) }],
      { container: createInstanceContainer(), clock: systemClock, logger, ready: async () => undefined },
    );
    workers.push(worker);
    worker.start();
    worker.wake("bug");
    await sleep(30);
    expect(lines).toEqual([{ level: "error", message: "faultline: background task failed" }]);
  });
});
