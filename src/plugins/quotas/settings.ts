import { ExpiringCache } from "../../cache/expiring-cache.js";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Clock } from "../../clock.js";
import type { Database } from "../../db/schema.js";

const count = z.number().int("must be a whole number").min(0, "must not be negative").max(2_000_000_000);

/** What a host sets for an organization; `null` (or left out) means no such limit. */
export const quotaSettingsInput = z.object({
  /** Events accepted per clock hour (UTC), across every project and instance. */
  eventsPerHour: count.nullable().default(null),
  /** Events accepted per calendar month (UTC). */
  eventsPerMonth: count.nullable().default(null),
  /** Refuse events past `multiple` × the average of the previous 24 hours, but never below `minimumPerHour`. */
  spikeProtection: z
    .object({
      multiple: z.number().positive("must be above 0").max(1000),
      minimumPerHour: count,
    })
    .nullable()
    .default(null),
});

/** An organization's budgets, as `faultline.api.quotas` takes them. */
export type QuotaSettingsInput = z.input<typeof quotaSettingsInput>;
/** An organization's budgets; all `null` for an unlimited one. */
export type QuotaSettings = z.output<typeof quotaSettingsInput>;

export const UNLIMITED: QuotaSettings = { eventsPerHour: null, eventsPerMonth: null, spikeProtection: null };

const MAX_CACHED_ORGANIZATIONS = 10_000;

/**
 * Organizations' budgets, read on every accepted request: cached on this object (one per
 * instance) for `ttlMs`. A change made through this instance applies here at once, on other
 * instances within `ttlMs`.
 */
export class QuotaSettingsStore {
  readonly #cache: ExpiringCache<number, QuotaSettings>;

  constructor(
    private readonly db: () => Kysely<Database>,
    private readonly clock: Clock,
    ttlMs: number,
  ) {
    this.#cache = new ExpiringCache(clock, ttlMs, MAX_CACHED_ORGANIZATIONS);
  }

  cached(organizationId: number): Promise<QuotaSettings> {
    return this.#cache.get(organizationId, () => this.read(organizationId));
  }

  async read(organizationId: number): Promise<QuotaSettings> {
    const row = await this.db()
      .selectFrom("organization_quotas")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .executeTakeFirst();
    if (!row) return UNLIMITED;
    return {
      eventsPerHour: row.events_per_hour,
      eventsPerMonth: row.events_per_month,
      spikeProtection:
        row.spike_multiple === null
          ? null
          : { multiple: row.spike_multiple, minimumPerHour: row.spike_minimum_per_hour ?? 0 },
    };
  }

  async write(organizationId: number, settings: QuotaSettings): Promise<void> {
    const values = {
      events_per_hour: settings.eventsPerHour,
      events_per_month: settings.eventsPerMonth,
      spike_multiple: settings.spikeProtection?.multiple ?? null,
      spike_minimum_per_hour: settings.spikeProtection?.minimumPerHour ?? null,
      date_updated: this.clock.now(),
    };
    await this.db()
      .insertInto("organization_quotas")
      .values({ organization_id: organizationId, throttled_episode: null, ...values })
      .onConflict((conflict) => conflict.column("organization_id").doUpdateSet(values))
      .execute();
    this.#cache.forget(organizationId);
  }
}
