// Its own module, free of plugin imports: the service and the worker thread decide alike.

/**
 * The outcome reason of an event refused because its grouping hash belongs to a discarded issue
 * (docs/issues.md, "Discard"): counted as `filtered`, as Sentry counts it.
 */
export const DISCARDED_HASH = "discarded-hash";

/** True when one of the event's grouping hashes is tombstoned in its project. */
export function isDiscarded(hashes: readonly string[], discarded: ReadonlySet<string> | null | undefined): boolean {
  return discarded != null && discarded.size > 0 && hashes.some((hash) => discarded.has(hash));
}
