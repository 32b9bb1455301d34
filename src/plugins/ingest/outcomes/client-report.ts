import { z } from "zod";
import type { EnvelopeItem } from "../accept/envelope.js";

/** What an SDK says it dropped itself (a `client_report` item): sampled, queue overflow, network errors, … */
export interface ClientDiscard {
  reason: string;
  category: string;
  quantity: number;
}

const clientReport = z.object({
  discarded_events: z
    .array(
      z.object({
        reason: z.string().min(1),
        category: z.string().min(1),
        quantity: z
          .number()
          .int()
          .positive()
          .max(2 ** 31),
      }),
    )
    .max(1000)
    .default([]),
});

const utf8 = new TextDecoder("utf-8");

/**
 * The discards reported by an envelope's `client_report` items. A malformed report is skipped
 * rather than refused: it is statistics about events already lost, and refusing the envelope
 * would only make the SDK send it again (Relay drops invalid reports too).
 */
export function clientDiscardsOf(items: readonly EnvelopeItem[]): ClientDiscard[] {
  const discards: ClientDiscard[] = [];
  for (const item of items) {
    if (item.header.type !== "client_report") continue;
    let json: unknown;
    try {
      json = JSON.parse(utf8.decode(item.payload));
    } catch {
      continue;
    }
    const report = clientReport.safeParse(json);
    if (report.success) discards.push(...report.data.discarded_events);
  }
  return discards;
}
