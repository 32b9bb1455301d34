import { setImmediate as afterPendingIo } from "node:timers/promises";

/**
 * Items a long loop of background work handles between two turns of the event loop: about a
 * millisecond of work per slice for the digest's per-event steps, so that the host's own requests
 * (and ingest's acknowledgements) wait at most that long behind a batch (without it a 500-event
 * digest batch blocked the loop for 20–35 ms at a time: docs/performance.md, "Error storm and
 * ack-to-visible").
 */
export const ITEMS_PER_TURN = 100;

/**
 * Resolves after the event loop has served the I/O that is waiting (a `setImmediate`), unlike an
 * `await` of a resolved promise, which continues before any I/O. Background work calls it
 * between slices of a long synchronous loop.
 */
export function yieldToEventLoop(): Promise<void> {
  return afterPendingIo();
}

/**
 * `items.map(map)`, one event-loop turn given up after every {@link ITEMS_PER_TURN} items. An
 * async `map` runs concurrently within a slice, and each slice is awaited before the next.
 */
export async function mapInTurns<T, R>(items: readonly T[], map: (item: T) => R | Promise<R>): Promise<R[]> {
  const mapped: R[] = [];
  for (let start = 0; start < items.length; start += ITEMS_PER_TURN) {
    if (start > 0) await yieldToEventLoop();
    mapped.push(...(await Promise.all(items.slice(start, start + ITEMS_PER_TURN).map(map))));
  }
  return mapped;
}
