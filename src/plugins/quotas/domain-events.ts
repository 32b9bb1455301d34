/** The quotas plugin's domain events (declaration merging); its index.ts imports this file. */
declare module "../../events/event-bus.js" {
  interface DomainEventMap {
    /**
     * An organization started being refused events: its hourly or monthly budget is spent
     * (`usage_exceeded`) or spike protection holds it to `limit` this hour (`spike_protection`).
     * Emitted once per throttling episode (one window of one budget), by whichever instance
     * refuses first, not once per refused request.
     */
    "organization.throttled": {
      reason: "usage_exceeded" | "spike_protection";
      period: "hour" | "month";
      /** Events the organization may send in the window. */
      limit: number;
      windowStart: Date;
      /** When the window ends and events are accepted again. */
      windowEnd: Date;
    };
  }
}

export {};
