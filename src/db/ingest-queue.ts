/**
 * A queued event (`ingest_queue`, 0008_ingest_queue) whose digest failed alone this many times
 * stays in the queue for inspection and is skipped. The table is the ingest plugin's; the rule is
 * here because the issues plugin's retention run, which deletes such rows once their project's
 * retention has passed, reads it too (that deletion belongs in ingest's own cleanup: ARCHITECTURE.md).
 */
export const MAX_DIGEST_ATTEMPTS = 5;
