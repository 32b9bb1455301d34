import type { QuotaStore } from "../../src/plugins/ingest/limits/rate-limit.js";

/** Rate-limit counters in memory (what PostgreSQL holds in production), counting the round trips made to them. */
export function memoryQuotaStore(): QuotaStore & { takes: number } {
  const counters = new Map<string, number>();
  return {
    takes: 0,
    async take(keyId, windowStart, amount) {
      this.takes++;
      const id = `${keyId}@${windowStart.getTime()}`;
      const total = (counters.get(id) ?? 0) + amount;
      counters.set(id, total);
      return total;
    },
  };
}
