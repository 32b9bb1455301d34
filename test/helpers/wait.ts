import { setTimeout as sleep } from "node:timers/promises";

export { sleep };

/**
 * Polls `probe` until it returns something truthy and returns that (or throws after
 * `timeoutMs`): for state written by a background worker, which no event announces.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met after ${timeoutMs} ms`);
    await sleep(25);
  }
}
