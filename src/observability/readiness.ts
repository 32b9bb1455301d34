import type { DependencyContainer } from "tsyringe";

/** One check's outcome; `skipped` does not count against readiness. Other members are the check's figures. */
export interface CheckResult {
  status: "ok" | "fail" | "skipped";
  /** Why it failed or was skipped. */
  detail?: string;
  [figure: string]: unknown;
}

/** What a readiness check of a plugin receives. */
export interface ReadinessContext {
  container: DependencyContainer;
  now: Date;
}

/**
 * A readiness check a plugin adds (`readiness: [...]`). Runs once the database answers and the
 * instance is initialised; a rejection, or no answer within `health.timeoutMs`, is a failure.
 */
export interface ReadinessCheck {
  /** Key of the check in the readiness body (`ingest.queue`). */
  name: string;
  check(ctx: ReadinessContext): Promise<CheckResult> | CheckResult;
}
