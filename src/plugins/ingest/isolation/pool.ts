import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ApiError } from "../../../http/errors.js";
import type { Logger } from "../../../logging/logger.js";
import type { PrepareJob, PrepareResult } from "./prepare.js";
import type { WorkerReply, WorkerRequest } from "./protocol.js";

/**
 * The worker's file name, assembled at run time on purpose: bundlers (webpack in Next.js 14,
 * Turbopack) treat `new URL("<literal>", import.meta.url)` as an asset, copy the worker into their
 * output as a script and fail to minify or load it. Without the literal they leave it alone.
 */
const WORKER_FILE = ["ingest-worker", "js"].join(".");

/**
 * The worker's entry, beside the module that starts it: the package's bundle and `ingest-worker.js`
 * share `dist/`; in the source test run this file is `isolation/pool.ts` and the worker is built
 * beside it (test/setup/ingest-worker.ts).
 */
export const INGEST_WORKER_URL = new URL(WORKER_FILE, import.meta.url);

/** Jobs one thread may have waiting: past this the pool is saturated and ingest answers 429 before parsing. */
const MAX_PENDING_PER_THREAD = 64;
/**
 * How long a new thread may take to load before the pool gives up on it and runs ingest inline:
 * a worker whose module never finishes loading would otherwise hold its requests open forever.
 */
const READY_TIMEOUT_MS = 10_000;
/** How long close() lets jobs already sent finish before the threads are terminated. */
const CLOSE_GRACE_MS = 5_000;

interface PendingJob {
  job: PrepareJob;
  resolve(result: PrepareResult): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, PendingJob>;
  /** Set by the worker's first message: its module (and everything it imports) loaded. */
  ready: boolean;
}

/** The same work on the host's thread, used when no worker thread can start. */
export type RunInline = (job: PrepareJob) => Promise<PrepareResult>;

/** A crashed thread's in-flight requests: nothing of theirs was queued, so the SDK retries. */
function workerStopped(): ApiError {
  return new ApiError(503, "Ingest worker stopped; retry", {}, { "Retry-After": "1" });
}

/**
 * A small pool of worker threads that run the CPU half of ingest (docs/ingest.md, "Isolation"):
 * bodies are copied once and the copy transferred (never the host's buffer); a crashed thread's
 * jobs fail with 503 and the thread is started again on the next job; close() lets running jobs
 * finish, then terminates the threads. A thread that stops before it is ready, or is not ready
 * within 10 s (its file is there but cannot load, as when a bundler rewrote it), switches the pool
 * to running jobs inline, once and with a warning, rather than answering 503 to every event.
 */
export class IngestWorkerPool {
  readonly #threads: Array<Thread | undefined>;
  #nextId = 0;
  #closed = false;
  /** Set when a thread could not start: every job since runs inline. */
  #inlineOnly = false;

  constructor(
    threads: number,
    private readonly logger: Pick<Logger, "warn">,
    private readonly runInline: RunInline,
    private readonly workerUrl: URL = INGEST_WORKER_URL,
    private readonly readyTimeoutMs: number = READY_TIMEOUT_MS,
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

  /** True once a thread failed to start: jobs run on the host's thread, as with `isolation: "inline"`. */
  get inlineOnly(): boolean {
    return this.#inlineOnly;
  }

  /** Threads started and not stopped (0 before the first job and after close()). */
  get running(): number {
    return this.#threads.filter((thread) => thread !== undefined).length;
  }

  /** Runs `job` on the least busy thread; the body's memory moves to that thread. */
  run(job: PrepareJob): Promise<PrepareResult> {
    if (this.#closed) return Promise.reject(workerStopped());
    if (this.#inlineOnly) return this.runInline(job);
    const thread = this.#leastBusy();
    const id = this.#nextId++;
    return new Promise<PrepareResult>((resolve, reject) => {
      thread.pending.set(id, { job, resolve, reject });
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
    const thread: Thread = { worker, pending: new Map(), ready: false };
    this.#threads[index] = thread;
    // Idle threads do not keep the host's process alive; a job in flight keeps its request open.
    worker.unref();
    const notReady = setTimeout(() => {
      this.#crashed(index, thread, new Error(`not ready within ${this.readyTimeoutMs} ms`));
      void worker.terminate();
    }, this.readyTimeoutMs);
    notReady.unref();
    worker.on("message", (reply: WorkerReply) => {
      if ("ready" in reply) {
        thread.ready = true;
        clearTimeout(notReady);
        return;
      }
      const job = thread.pending.get(reply.id);
      thread.pending.delete(reply.id);
      if ("result" in reply) job?.resolve(reply.result);
      else job?.reject(new Error(`Ingest worker failed: ${reply.error}`));
    });
    // Decided on `exit`, not `error`: Node delivers the thread's pending messages before `exit`, so
    // a thread that loaded (its `ready` sent) and then crashed is never mistaken for one that
    // never loaded — whose jobs would rerun inline instead of answering 503. An uncaught error
    // always ends the thread, so `exit` follows it.
    let failure: Error | undefined;
    worker.on("error", (error) => void (failure ??= error));
    worker.on("exit", (code) => {
      clearTimeout(notReady);
      this.#crashed(index, thread, failure ?? new Error(`exited with code ${code}`));
    });
    return thread;
  }

  /** The thread is gone: its jobs answer 503 and the next job starts a fresh one in its slot. */
  #crashed(index: number, thread: Thread, error: Error): void {
    if (this.#threads[index] !== thread) return;
    this.#threads[index] = undefined;
    if (!thread.ready && !this.#closed) return this.#fallBackInline(thread, error);
    if (!this.#closed) this.logger.warn({ err: error }, "faultline: an ingest worker thread stopped; restarting it");
    for (const job of thread.pending.values()) job.reject(workerStopped());
    thread.pending.clear();
  }

  /** The thread never loaded, so none of its jobs was started there: they (and all later jobs) run inline. */
  #fallBackInline(thread: Thread, error: Error): void {
    if (!this.#inlineOnly)
      this.logger.warn(
        { err: error, workerUrl: this.workerUrl.href },
        'faultline: the ingest worker thread could not start; ingest runs on the host\'s thread (docs/ingest.md, "Isolation")',
      );
    this.#inlineOnly = true;
    for (const pending of thread.pending.values()) this.runInline(pending.job).then(pending.resolve, pending.reject);
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
