import pRetry from "p-retry";
import { isConnectionFailure, isDeadlockOrSerializationFailure } from "./errors.js";

/** Tries in all for a deadlock or serialization failure (the first and two more). */
const DEADLOCK_TRIES = 3;

/** Which passing database failures a write may simply run again for. */
export interface TransientFailures {
  /** A deadlock or serialization failure: run again at once, up to three tries in all. */
  deadlock?: boolean;
  /**
   * A connection lost during the first try (a terminated backend, a failover): run once more, on
   * a fresh connection. Only safe for a write that may land twice: the caller says why it is.
   * A second loss is an outage, re-thrown (the HTTP layer answers 503).
   */
  lostConnection?: boolean;
}

/**
 * Runs `work`, and again (without delay) after the failures `retry` names; any other failure, or
 * the last one, is re-thrown as it was. `work` opens its own connection or transaction each time.
 * (p-retry re-throws a thrown non-Error as a TypeError and never retries a TypeError other than a
 * network one: neither is what `pg`, PGlite or Kysely throw for these failures.)
 */
export function retryTransientFailures<T>(work: () => Promise<T>, retry: TransientFailures): Promise<T> {
  return pRetry(() => work(), {
    retries: DEADLOCK_TRIES - 1,
    minTimeout: 0,
    shouldRetry: ({ error, attemptNumber }) =>
      (retry.deadlock === true && isDeadlockOrSerializationFailure(error)) ||
      (retry.lostConnection === true && attemptNumber === 1 && isConnectionFailure(error)),
  });
}
