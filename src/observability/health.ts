import type { DependencyContainer } from "tsyringe";
import type { Clock } from "../clock.js";
import { describeError } from "../db/errors.js";
import type { ResolvedOptions } from "../options.js";
import type { CheckResult, ReadinessCheck } from "./readiness.js";

/** The readiness body: `ok` when no check failed. */
export interface HealthReport {
  status: "ok" | "fail";
  checks: Record<string, CheckResult>;
}

/**
 * Liveness and readiness for an orchestrator, as web-standard handlers the host mounts where its
 * orchestrator probes (`/livez`, `/readyz`…).
 */
export interface Health {
  /** Liveness: 200 `{"status":"ok"}` while the process can answer at all; it never touches the database (an outage must not restart every replica). */
  live(request?: Request): Promise<Response>;
  /** Readiness: runs {@link Health.check}; 200 when every check passed, 503 otherwise, the report as the JSON body. */
  ready(request?: Request): Promise<Response>;
  /** The readiness report, in-process (for a host that folds it into its own health endpoint). */
  check(): Promise<HealthReport>;
}

export interface HealthDeps {
  /** One round trip to the database (opens the connection if needed, not the instance). */
  ping(): Promise<unknown>;
  /** Names of migrations not applied yet (core and plugins). */
  pendingMigrations(): Promise<string[]>;
  /** The instance's lazy initialisation (what the first request would wait for). */
  initialise(): Promise<unknown>;
  closed(): boolean;
  worker: { readonly started: boolean; overdueTasks(graceMs: number): string[] };
  checks: readonly ReadinessCheck[];
  container: DependencyContainer;
  clock: Clock;
  options: ResolvedOptions["health"];
}

const ok: CheckResult = { status: "ok" };
const JSON_HEADERS = { "Content-Type": "application/json", "Cache-Control": "no-store" };

export function createHealth(deps: HealthDeps): Health {
  // Migrations this process knows of never become pending again once applied: asked until then only.
  let migrationsCurrent = false;

  const timed = <T>(work: () => Promise<T> | T, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${what} did not answer within ${deps.options.timeoutMs} ms`)),
        deps.options.timeoutMs,
      );
      Promise.resolve()
        .then(work)
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    });

  const attempt = async (work: () => Promise<CheckResult> | CheckResult, what: string): Promise<CheckResult> => {
    try {
      return await timed(work, what);
    } catch (error) {
      return { status: "fail", detail: describeError(error) };
    }
  };

  async function check(): Promise<HealthReport> {
    if (deps.closed()) return report({ instance: { status: "fail", detail: "this Faultline instance is closed" } });
    const checks: Record<string, CheckResult> = {};
    checks.database = await attempt(async () => (await deps.ping(), ok), "the database");
    const skipped = (detail: string): CheckResult => ({ status: "skipped", detail });
    if (checks.database.status !== "ok") {
      for (const name of ["startup", "migrations", "worker", ...deps.checks.map((c) => c.name)])
        checks[name] = skipped("the database is unreachable");
      return report(checks);
    }
    checks.startup = await attempt(async () => (await deps.initialise(), ok), "initialisation");
    checks.migrations = await attempt(async () => {
      if (migrationsCurrent) return ok;
      const pending = await deps.pendingMigrations();
      migrationsCurrent = pending.length === 0;
      return migrationsCurrent
        ? ok
        : { status: "fail", detail: "migrations are pending: run `faultline migrate`", pending };
    }, "the migration tables");
    checks.worker = workerCheck();
    const initialised = checks.startup.status === "ok";
    for (const readiness of deps.checks) {
      checks[readiness.name] = initialised
        ? await attempt(() => readiness.check({ container: deps.container, now: deps.clock.now() }), readiness.name)
        : skipped("the instance is not initialised");
    }
    return report(checks);
  }

  function workerCheck(): CheckResult {
    if (!deps.worker.started) return { status: "skipped", detail: "this instance runs no worker" };
    const overdue = deps.worker.overdueTasks(deps.options.workerStallMs);
    return overdue.length === 0
      ? ok
      : { status: "fail", detail: `background tasks overdue by more than ${deps.options.workerStallMs} ms`, overdue };
  }

  return {
    live: async () => new Response(JSON.stringify({ status: "ok" }), { status: 200, headers: JSON_HEADERS }),
    ready: async () => {
      const result = await check();
      return new Response(JSON.stringify(result), {
        status: result.status === "ok" ? 200 : 503,
        headers: JSON_HEADERS,
      });
    },
    check,
  };
}

function report(checks: Record<string, CheckResult>): HealthReport {
  return { status: Object.values(checks).some((result) => result.status === "fail") ? "fail" : "ok", checks };
}
