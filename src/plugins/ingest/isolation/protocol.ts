import type { PrepareJob, PrepareResult } from "./prepare.js";

/** A job sent to an ingest worker thread; `id` pairs it with its reply. */
export interface WorkerRequest {
  id: number;
  job: PrepareJob;
}

/**
 * The worker's messages: `ready` once its module loaded, then per job the result or the text of
 * an unexpected error (a bug, answered 500).
 */
export type WorkerReply = { ready: true } | { id: number; result: PrepareResult } | { id: number; error: string };

/**
 * The environment variable whose value, found in a request body, makes the worker thread crash:
 * set by tests only (docs/ingest.md, "Isolation"). Unset, the worker never looks.
 */
export const CRASH_MARKER_ENV = "FAULTLINE_TEST_INGEST_WORKER_CRASH_MARKER";
