import type { EnvelopeItemHandler } from "../ingest/index.js";
import type { SessionBuffer } from "./buffer.js";
import { clockDrift, parseSessionAggregates, parseSessionUpdate, type SessionContribution } from "./parse.js";

/**
 * Keeps `session` (one update of one session, browser and mobile SDKs) and `sessions` (per-minute
 * aggregates, server SDKs in request mode) items: parsed, then counted in the instance's
 * {@link SessionBuffer}. An item that does not parse, or whose session started more than five
 * days ago, is dropped and counted in the project's outcomes (category `session`, `invalid`).
 */
export function sessionItemHandler(buffer: SessionBuffer): EnvelopeItemHandler {
  return {
    itemTypes: ["session", "sessions"],
    async accept(items, context) {
      const parseContext = {
        projectId: context.project.id,
        receivedAt: context.receivedAt,
        driftMs: clockDrift(context.envelopeHeader, context.receivedAt),
      };
      const contributions: SessionContribution[] = [];
      for (const item of items) {
        const parse = item.type === "session" ? parseSessionUpdate : parseSessionAggregates;
        const result = parse(item.payload, parseContext);
        if (result.ok) contributions.push(...result.contributions);
        else context.outcome("session", "invalid", result.reason, 1);
      }
      if (contributions.length > 0) await buffer.add(contributions);
    },
  };
}
