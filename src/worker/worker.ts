import type { DependencyContainer } from "tsyringe";
import type { Clock } from "../clock.js";
import type { Logger } from "../logging/logger.js";
import type { TaskDefinition } from "./task.js";

/** Upper bound of back-to-back slices of one task before yielding to the timer. */
const MAX_SLICES_PER_TICK = 50;

/**
 * Runs plugin tasks on their intervals. `start()` schedules them (timers do not keep the
 * process alive), `stop()` waits for in-flight slices, `runDue()` runs every task until it
 * reports no more work — what tests and `drain()` use.
 */
export class Worker {
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #started = false;

  constructor(
    private readonly tasks: readonly TaskDefinition[],
    private readonly deps: { container: DependencyContainer; clock: Clock; logger: Logger; ready: () => Promise<unknown> },
  ) {}

  get started(): boolean {
    return this.#started;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const task of this.tasks) this.#schedule(task);
  }

  async stop(): Promise<void> {
    this.#started = false;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#running]);
  }

  /** Runs every task (or the named one) until none reports pending work. */
  async runDue(taskId?: string): Promise<void> {
    await this.deps.ready();
    for (const task of this.tasks) {
      if (taskId && task.id !== taskId) continue;
      while (await this.#slice(task)) {
        /* keep going: the task said more is pending */
      }
    }
  }

  #schedule(task: TaskDefinition): void {
    const timer = setTimeout(() => {
      const tick = this.#tick(task).finally(() => {
        this.#running.delete(tick);
        if (this.#started) this.#schedule(task);
      });
      this.#running.add(tick);
    }, task.intervalMs);
    timer.unref();
    this.#timers.set(task.id, timer);
  }

  async #tick(task: TaskDefinition): Promise<void> {
    try {
      await this.deps.ready();
      for (let i = 0; i < MAX_SLICES_PER_TICK && this.#started; i++) {
        if (!(await this.#slice(task))) return;
      }
    } catch (error) {
      this.deps.logger.error({ err: error, task: task.id }, "faultline: background task failed");
    }
  }

  #slice(task: TaskDefinition): Promise<boolean> {
    return task.run({ container: this.deps.container, now: this.deps.clock.now() });
  }
}
