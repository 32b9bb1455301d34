import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ApiError } from "../../../http/errors.js";
import type { Logger } from "../../../logging/logger.js";
import type { PrepareJob, PrepareResult } from "./prepare.js";
import type { WorkerReply, WorkerRequest } from "./protocol.js";

/**
 * The worker's entry, beside the module that starts it: the package's bundle and `ingest-worker.js`
 * share `dist/`; in the source test run this file is `isolation/pool.ts` and the worker is built
 * beside it (test/setup/ingest-worker.ts).
 */
export const INGEST_WORKER_URL = new URL("./ingest-worker.js", import.meta.url);

/** Jobs one thread may have waiting: past this the pool is saturated and ingest answers 429 before parsing. */
const MAX_PENDING_PER_THREAD = 64;
/** How long close() lets jobs already sent finish before the threads are terminated. */
const CLOSE_GRACE_MS = 5_000;

interface PendingJob {
  resolve(result: PrepareResult): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, PendingJob>;
}

/** A crashed thread's in-flight requests: nothing of theirs was queued, so the SDK retries. */
function workerStopped(): ApiError {
  return new ApiError(503, "Ingest worker stopped; retry", {}, { "Retry-After": "1" });
}

/**
 * A small pool of worker threads that run the CPU half of ingest (docs/ingest.md, "Isolation"):
 * bodies are copied once and the copy transferred (never the host's buffer); a crashed thread's jobs fail with 503 and the thread is
 * started again on the next job; close() lets running jobs finish, then terminates the threads.
 */
export class IngestWorkerPool {
  readonly #threads: Array<Thread | undefined>;
  #nextId = 0;
  #closed = false;

  constructor(
    threads: number,
    private readonly logger: Pick<Logger, "warn">,
    private readonly workerUrl: URL = INGEST_WORKER_URL,
  ) {
    this.#threads = Array.from({ length: threads }, () => undefined);
  }

  /** False where the worker's file is not beside the module (a bundler moved Faultline): ingest runs inline. */
  static available(workerUrl: URL = INGEST_WORKER_URL): boolean {
    return workerUrl.protocol === "file:" && existsSync(fileURLToPath(workerUrl));
  }

  /** True when every thread has its fill of waiting jobs: the request is refused before its body is parsed. */
  get saturated(): boolean {
    return this.#pendingCount() >= this.#threads.length * MAX_PENDING_PER_THREAD;
  }

  /** Threads started and not stopped (0 before the first job and after close()). */
  get running(): number {
    return this.#threads.filter((thread) => thread !== undefined).length;
  }

  /** Runs `job` on the least busy thread; the body's memory moves to that thread. */
  run(job: PrepareJob): Promise<PrepareResult> {
    if (this.#closed) return Promise.reject(workerStopped());
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise<PrepareResult>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      post(thread.worker, { id, job });
    });
  }

  /** Lets the jobs already sent finish (up to a grace period), then terminates every thread. */
  async close(): Promise<void> {
    this.#closed = true;
    const deadline = Date.now() + CLOSE_GRACE_MS;
    while (this.#pendingCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all(this.#threads.map((thread, index) => thread && this.#stop(index, thread)));
  }

  #pendingCount(): number {
    return this.#threads.reduce((sum, thread) => sum + (thread?.pending.size ?? 0), 0);
  }

  #leastBusy(): Thread {
    let best = 0;
    for (let index = 0; index < this.#threads.length; index++) {
      const size = this.#threads[index]?.pending.size ?? -1;
      if (size < (this.#threads[best]?.pending.size ?? -1)) best = index;
    }
    return this.#threads[best] ?? this.#start(best);
  }

  #start(index: number): Thread {
    const worker = new Worker(this.workerUrl);
    const thread: Thread = { worker, pending: new Map() };
    this.#threads[index] = thread;
    // Idle threads do not keep the host's process alive; a job in flight keeps its request open.
    worker.unref();
    worker.on("message", (reply: WorkerReply) => {
      const job = thread.pending.get(reply.id);
      thread.pending.delete(reply.id);
      if ("result" in reply) job?.resolve(reply.result);
      else job?.reject(new Error(`Ingest worker failed: ${reply.error}`));
    });
    worker.on("error", (error) => this.#crashed(index, thread, error));
    worker.on("exit", (code) => this.#crashed(index, thread, new Error(`exited with code ${code}`)));
    return thread;
  }

  /** The thread is gone: its jobs answer 503 and the next job starts a fresh one in its slot. */
  #crashed(index: number, thread: Thread, error: Error): void {
    if (this.#threads[index] !== thread) return;
    this.#threads[index] = undefined;
    if (!this.#closed) this.logger.warn({ err: error }, "faultline: an ingest worker thread stopped; restarting it");
    for (const job of thread.pending.values()) job.reject(workerStopped());
    thread.pending.clear();
  }

  async #stop(index: number, thread: Thread): Promise<void> {
    this.#crashed(index, thread, new Error("closed"));
    await thread.worker.terminate();
  }
}

/**
 * Sends a job with a copy of its body, whose memory is then moved to the thread. The body's own
 * buffer is never transferred: it may be shared with the host (a cloned request's other branch,
 * a middleware that kept the body, Node's pooled socket reads), and transferring detaches it
 * there. The copy costs microseconds for a typical envelope.
 */
function post(worker: Worker, request: WorkerRequest): void {
  const copy = new Uint8Array(request.job.body);
  worker.postMessage({ ...request, job: { ...request.job, body: copy } }, [copy.buffer as ArrayBuffer]);
}
