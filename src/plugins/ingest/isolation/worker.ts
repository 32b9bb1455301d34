// The ingest worker thread's entry (docs/ingest.md, "Isolation"): built as `ingest-worker.js`
// beside the package's bundle (tsup.config.ts) and, for the source test run, beside this file
// (test/setup/ingest-worker.ts). The grouping code it imports reaches tsyringe, which needs the
// reflect polyfill before it loads.
import "reflect-metadata";
import { parentPort } from "node:worker_threads";
import { prepareIngest, type PrepareJob, type PrepareResult } from "./prepare.js";
import { CRASH_MARKER_ENV, type WorkerReply, type WorkerRequest } from "./protocol.js";

const port = parentPort;
if (!port) throw new Error("ingest-worker.js runs as a worker thread only");

/**
 * Tests prove that a crashed worker loses no acknowledged event: a body containing this marker
 * (set only through the environment of the process that starts the pool) kills the thread the
 * way a fatal bug would, by an uncaught exception.
 */
const crashMarker = process.env[CRASH_MARKER_ENV] ? Buffer.from(process.env[CRASH_MARKER_ENV]) : null;

function crashesOnPurpose(job: PrepareJob): boolean {
  return (
    crashMarker !== null && Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).includes(crashMarker)
  );
}

port.on("message", (request: WorkerRequest) => {
  if (crashesOnPurpose(request.job))
    setImmediate(() => {
      throw new Error("ingest worker: crash requested by the test marker");
    });
  else
    void prepareIngest(request.job).then(
      (result: PrepareResult) => port.postMessage({ id: request.id, result } satisfies WorkerReply),
      (error: unknown) =>
        port.postMessage({ id: request.id, error: String((error as Error)?.stack ?? error) } satisfies WorkerReply),
    );
});

// The pool runs jobs inline when a thread stops before saying this (its file did not load).
port.postMessage({ ready: true } satisfies WorkerReply);
