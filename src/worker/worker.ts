import type { DependencyContainer } from "tsyringe";
import type { Clock } from "../clock.js";
import { isConnectionFailure } from "../db/errors.js";
import type { Logger } from "../logging/logger.js";
import type { Metrics } from "../observability/metrics.js";
import type { TaskDefinition } from "./task.js";

/** Upper bound of back-to-back slices of one task before yielding to the timer. */
const MAX_SLICES_PER_TICK = 50;
/** A task failing again and again (the database is down) runs at most this far apart. */
const MAX_BACKOFF_MS = 30_000;
/** A failure streak is logged when it starts, then at most this often while it lasts. */
const REPEAT_LOG_MS = 5 * 60_000;

/**
 * Runs plugin tasks on their intervals. `start()` schedules them (timers do not keep the
 * process alive), `stop()` waits for in-flight slices, `runDue()` runs every task until it
 * reports no more work — what tests and `drain()` use. A failing run is logged and the task
 * runs again later, its interval doubling with each consecutive failure (up to 30 s); a wake
 * (new work, a LISTEN connection restored) runs it at once. A failure streak is logged once when
 * it starts, at most every five minutes while it lasts, and once when it ends: an outage does not
 * write a line per tick.
 */
export class Worker {
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  readonly #busy = new Set<string>();
  readonly #wakeAgain = new Set<string>();
  /** Consecutive failed ticks per task. */
  readonly #failures = new Map<string, number>();
  /** When the current failure streak of a task was last logged (performance.now()). */
  readonly #loggedAt = new Map<string, number>();
  /** When each task's last tick ended, or the worker started (performance.now(): liveness is real time, whatever the Clock). */
  readonly #lastEnded = new Map<string, number>();
  readonly #failureCount;
  #started = false;

  constructor(
    private readonly tasks: readonly TaskDefinition[],
    private readonly deps: {
      container: DependencyContainer;
      clock: Clock;
      logger: Logger;
      ready: () => Promise<unknown>;
      metrics?: Metrics;
    },
  ) {
    this.#failureCount = deps.metrics?.counter(
      "worker_task_failures_total",
      "Background task runs that failed, per task",
      ["task"],
    );
  }

  get started(): boolean {
    return this.#started;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    const now = performance.now();
    for (const task of this.tasks) {
      this.#lastEnded.set(task.id, now);
      this.#schedule(task);
    }
  }

  /**
   * Ids of the tasks whose next run is more than `graceMs` late (a tick that hangs, a timer that
   * stopped): what readiness calls a dead worker. Empty when the worker is not started.
   */
  overdueTasks(graceMs: number): string[] {
    if (!this.#started) return [];
    const now = performance.now();
    return this.tasks
      .filter((task) => now - (this.#lastEnded.get(task.id) ?? now) - this.#nextDelay(task) > graceMs)
      .map((task) => task.id);
  }

  async stop(): Promise<void> {
    this.#started = false;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#running]);
    for (const task of this.tasks) await task.settle?.(this.#context());
  }

  /** Runs every task (or the named one) until none reports pending work, waiting for what it started. */
  async runDue(taskId?: string): Promise<void> {
    await this.deps.ready();
    for (const task of this.tasks) {
      if (taskId && task.id !== taskId) continue;
      let more = true;
      while (more) {
        more = await this.#slice(task);
        await task.settle?.(this.#context());
      }
    }
  }

  /** Runs a task as soon as possible (new work was committed), instead of at its next interval. */
  wake(taskId: string): void {
    const task = this.tasks.find((candidate) => candidate.id === taskId);
    if (!task || !this.#started) return;
    if (this.#busy.has(taskId)) {
      this.#wakeAgain.add(taskId);
      return;
    }
    clearTimeout(this.#timers.get(taskId));
    this.#schedule(task, 0);
  }

  #schedule(task: TaskDefinition, delayMs = task.intervalMs): void {
    const timer = setTimeout(() => {
      this.#busy.add(task.id);
      const tick = this.#tick(task).finally(() => {
        this.#lastEnded.set(task.id, performance.now());
        this.#running.delete(tick);
        this.#busy.delete(task.id);
        const again = this.#wakeAgain.delete(task.id);
        if (this.#started) this.#schedule(task, again ? 0 : this.#nextDelay(task));
      });
      this.#running.add(tick);
    }, delayMs);
    timer.unref();
    this.#timers.set(task.id, timer);
  }

  async #tick(task: TaskDefinition): Promise<void> {
    try {
      await this.deps.ready();
      for (let i = 0; i < MAX_SLICES_PER_TICK && this.#started; i++) {
        const more = await this.#slice(task);
        this.#recovered(task);
        if (!more) return;
      }
    } catch (error) {
      this.#failed(task, error);
    }
  }

  #failed(task: TaskDefinition, error: unknown): void {
    const failures = (this.#failures.get(task.id) ?? 0) + 1;
    this.#failures.set(task.id, failures);
    this.#failureCount?.labels(task.id).inc();
    const now = performance.now();
    const loggedAt = this.#loggedAt.get(task.id);
    if (loggedAt !== undefined && now - loggedAt < REPEAT_LOG_MS) return;
    this.#loggedAt.set(task.id, now);
    const details = { err: error, task: task.id, consecutiveFailures: failures, nextRunMs: this.#nextDelay(task) };
    // An outage is expected to pass and is said once per streak (then every few minutes), not as a crash.
    if (isConnectionFailure(error))
      this.deps.logger.warn(details, "faultline: background task could not reach the database; retrying later");
    else this.deps.logger.error(details, "faultline: background task failed");
  }

  #recovered(task: TaskDefinition): void {
    const failures = this.#failures.get(task.id);
    if (failures === undefined) return;
    this.#failures.delete(task.id);
    this.#loggedAt.delete(task.id);
    this.deps.logger.info({ task: task.id, failures }, "faultline: background task recovered");
  }

  #nextDelay(task: TaskDefinition): number {
    const failures = this.#failures.get(task.id) ?? 0;
    if (failures === 0) return task.intervalMs;
    return Math.min(task.intervalMs * 2 ** failures, Math.max(MAX_BACKOFF_MS, task.intervalMs));
  }

  #slice(task: TaskDefinition): Promise<boolean> {
    return task.run(this.#context());
  }

  #context() {
    return { container: this.deps.container, now: this.deps.clock.now() };
  }
}
