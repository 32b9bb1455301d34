import type { Kysely } from "kysely";
import type { Clock } from "../../clock.js";
import type { Database } from "../../db/schema.js";
import { runInTransaction } from "../../db/transaction.js";
import { type EventBus, SYSTEM_ACTOR } from "../../events/event-bus.js";
import type { Logger } from "../../logging/logger.js";
import { SharedRateLimiter } from "../../rate-limit/shared-limiter.js";
import type { QuotaSettings, QuotaSettingsStore } from "./settings.js";
import { hourlyAverage, hourOf, monthOf, type QuotaPeriod, quotaWindowStore, type WindowBounds } from "./windows.js";

/** Why an organization's events are refused: Sentry's reason codes. */
export type ThrottleReason = "usage_exceeded" | "spike_protection";

export type QuotaDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; reason: ThrottleReason };

const ALLOWED: QuotaDecision = { allowed: true };
const HOUR_MS = 3_600_000;

/** A window's limit and which budget sets it. */
interface BudgetLimit {
  limit: number;
  reason: ThrottleReason;
}

/** Spike limits computed for the current hour, per organization. */
interface Baseline {
  hourStart: number;
  limit: Promise<number>;
}

/** Organizations' baselines and announced episodes are remembered up to this many each, then forgotten together. */
const MAX_REMEMBERED = 10_000;

/**
 * Per-organization budgets counted at accept, across every instance on the schema: an hourly and
 * a monthly quota, and spike protection (an hourly limit of a multiple of the previous day's
 * hourly average). Counted like the DSN keys' limits — quota leased in chunks from shared
 * counters (src/rate-limit) — so all instances spend one budget.
 */
export class OrganizationQuotas {
  readonly #hourly: SharedRateLimiter;
  readonly #monthly: SharedRateLimiter;
  readonly #baselines = new Map<number, Baseline>();
  readonly #announced = new Set<string>();

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly settings: Pick<QuotaSettingsStore, "cached">,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    // Windows are always given by their bounds (`consumeIn`), so the default length is never used.
    this.#hourly = new SharedRateLimiter(HOUR_MS, quotaWindowStore(db, "hour"));
    this.#monthly = new SharedRateLimiter(HOUR_MS, quotaWindowStore(db, "month"));
  }

  /** Takes `events` from the organization's budgets; a refusal (taking nothing more) when one is spent. */
  async consume(organizationId: number, events: number, nowMs: number): Promise<QuotaDecision> {
    const settings = await this.settings.cached(organizationId);
    const hour = hourOf(nowMs);
    const hourLimit = await this.#hourLimit(organizationId, settings, hour);
    if (hourLimit) {
      const decision = await this.#hourly.consumeIn(organizationId, events, hourLimit.limit, nowMs, hour);
      if (!decision.allowed) return this.#refused(organizationId, "hour", hour, hourLimit, decision.retryAfterSeconds);
    }
    if (settings.eventsPerMonth !== null) {
      const month = monthOf(nowMs);
      const limit = settings.eventsPerMonth;
      const decision = await this.#monthly.consumeIn(organizationId, events, limit, nowMs, month);
      if (!decision.allowed) {
        const monthLimit = { limit, reason: "usage_exceeded" } as const;
        return this.#refused(organizationId, "month", month, monthLimit, decision.retryAfterSeconds);
      }
    }
    return ALLOWED;
  }

  /** The lower of the hourly quota and the spike limit; null when neither is set. */
  async #hourLimit(organizationId: number, settings: QuotaSettings, hour: WindowBounds): Promise<BudgetLimit | null> {
    const quota = settings.eventsPerHour;
    if (settings.spikeProtection === null) return quota === null ? null : { limit: quota, reason: "usage_exceeded" };
    const spike = await this.#spikeLimit(organizationId, settings.spikeProtection, hour.start);
    return quota !== null && quota <= spike
      ? { limit: quota, reason: "usage_exceeded" }
      : { limit: spike, reason: "spike_protection" };
  }

  /** Computed once per organization and hour on each instance (the baseline only changes on the hour). */
  #spikeLimit(
    organizationId: number,
    protection: NonNullable<QuotaSettings["spikeProtection"]>,
    hourStart: number,
  ): Promise<number> {
    let baseline = this.#baselines.get(organizationId);
    if (!baseline || baseline.hourStart !== hourStart) {
      if (this.#baselines.size >= MAX_REMEMBERED) this.#baselines.clear();
      const average = hourlyAverage(this.db(), organizationId, hourStart);
      baseline = { hourStart, limit: average };
      this.#baselines.set(organizationId, baseline);
      average.catch(() => this.#baselines.delete(organizationId));
    }
    return baseline.limit.then((average) =>
      Math.max(protection.minimumPerHour, Math.ceil(protection.multiple * average)),
    );
  }

  #refused(
    organizationId: number,
    period: QuotaPeriod,
    window: WindowBounds,
    budget: BudgetLimit,
    retryAfterSeconds: number,
  ): QuotaDecision {
    const episode = `${period}:${new Date(window.start).toISOString()}`;
    if (!this.#announced.has(`${organizationId}/${episode}`)) {
      if (this.#announced.size >= MAX_REMEMBERED) this.#announced.clear();
      this.#announced.add(`${organizationId}/${episode}`);
      // Not awaited: the refusal is answered at once; the announcement never fails it.
      this.#announce(organizationId, episode, period, window, budget).catch((error: unknown) =>
        this.logger.warn({ err: error, organizationId }, "faultline: announcing an organization's throttling failed"),
      );
    }
    return { allowed: false, retryAfterSeconds, reason: budget.reason };
  }

  /**
   * Claims the episode in the organization's row (the instance whose update changes it wins) and
   * emits `organization.throttled` in the same transaction, so subscribers hear of it once.
   */
  async #announce(
    organizationId: number,
    episode: string,
    period: QuotaPeriod,
    window: WindowBounds,
    { limit, reason }: BudgetLimit,
  ): Promise<void> {
    await runInTransaction(this.db(), async (scope) => {
      const claimed = await scope.trx
        .updateTable("organization_quotas")
        .set({ throttled_episode: episode })
        .where("organization_id", "=", organizationId)
        .where((eb) => eb.or([eb("throttled_episode", "is", null), eb("throttled_episode", "!=", episode)]))
        .returning("organization_id")
        .executeTakeFirst();
      if (!claimed) return;
      await this.events.emit(scope, {
        name: "organization.throttled",
        organizationId,
        actor: SYSTEM_ACTOR,
        occurredAt: this.clock.now(),
        payload: { reason, period, limit, windowStart: new Date(window.start), windowEnd: new Date(window.end) },
      });
    });
  }
}
