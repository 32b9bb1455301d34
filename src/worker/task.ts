import type { DependencyContainer } from "tsyringe";

export interface TaskContext {
  container: DependencyContainer;
  now: Date;
}

/**
 * Background work a plugin declares (purging deleted issues, lifting snoozes, delivering
 * webhooks…). `run` does one bounded slice of work and returns true when more is pending, so
 * the worker calls it again at once instead of waiting for the next interval. It must be safe
 * with several workers on one database (claim rows with `FOR UPDATE SKIP LOCKED`).
 */
export interface TaskDefinition {
  id: string;
  intervalMs: number;
  run(ctx: TaskContext): Promise<boolean>;
  /** Waits for work `run` started but did not await (sends in flight). */
  settle?(ctx: TaskContext): Promise<void>;
}
