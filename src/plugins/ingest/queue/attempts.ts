/**
 * A queued event (`ingest_queue`) whose digest failed alone this many times stays in the queue
 * for inspection and is skipped; {@link queueLeftoversTask} deletes it once its project's
 * retention has passed.
 */
export const MAX_DIGEST_ATTEMPTS = 5;
