import { isConnectionFailure } from "./errors.js";

export interface BatcherOptions {
  /** Most items written in one transaction. */
  maxBatch: number;
  /** How long the first item of a batch waits for company. */
  maxDelayMs: number;
  /** Batches written at the same time (each holds one connection). */
  maxConcurrent: number;
}

interface Pending<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit: items submitted within a few milliseconds are written together in one
 * transaction, and each caller's promise settles only after that transaction committed — so an
 * acknowledged item is durable. A failing batch is retried item by item, so one bad item fails
 * alone; except when the database is unreachable, which no item caused: every caller of the
 * batch gets that error at once rather than after one more failed connection each.
 */
export class GroupCommitBatcher<T> {
  readonly #queue: Array<Pending<T>> = [];
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: BatcherOptions,
  ) {}

  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#queue.length >= this.options.maxBatch) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.options.maxDelayMs);
    });
  }

  /** Writes everything queued and waits for every batch in flight. */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#inFlight.size > 0) {
      this.#flush();
      await Promise.allSettled([...this.#inFlight]);
    }
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#queue.length > 0 && this.#inFlight.size < this.options.maxConcurrent) {
      const batch = this.#queue.splice(0, this.options.maxBatch);
      const running = this.#writeBatch(batch).finally(() => {
        this.#inFlight.delete(running);
        if (this.#queue.length > 0) this.#flush();
      });
      this.#inFlight.add(running);
    }
  }

  async #writeBatch(batch: Array<Pending<T>>): Promise<void> {
    try {
      await this.write(batch.map((p) => p.item));
      for (const pending of batch) pending.resolve();
    } catch (error) {
      if (batch.length === 1 || isConnectionFailure(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      for (const pending of batch) await this.#writeBatch([pending]);
    }
  }
}
