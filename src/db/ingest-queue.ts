/**
 * A queued event (`ingest_queue`, 0008_ingest_queue) whose digest failed alone this many times
 * stays in the queue for inspection and is skipped. The table is the core's, and two plugins read
 * this rule from it: ingest's digest (which claims and retries rows) and the issues plugin's
 * retention (which deletes such rows once their project's retention has passed).
 */
export const MAX_DIGEST_ATTEMPTS = 5;
