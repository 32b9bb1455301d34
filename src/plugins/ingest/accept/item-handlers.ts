import type { InjectionToken } from "tsyringe";
import type { ProjectRef } from "../../event-store/index.js";

/** One envelope item that is not an error event, as it arrived. */
export interface EnvelopeItemInput {
  /** The item header's `type` (`check_in`, `feedback`, `session`…). */
  type: string;
  /** The whole item header (`content_type`, `filename`, `attachment_type`… for attachments). */
  header: Record<string, unknown>;
  /** The payload bytes (JSON for most types, binary for attachments). */
  payload: Uint8Array;
}

/** What a handler knows of the request its items came with. */
export interface EnvelopeItemContext {
  /** The project the DSN key authenticated. */
  project: ProjectRef;
  receivedAt: Date;
  /** The sender's address as the adapter resolved it (trusted proxies applied), null when unknown. */
  clientAddress: string | null;
  /** The envelope header: `event_id`, `sent_at`, `sdk`, `dsn`. */
  envelopeHeader: Record<string, unknown>;
  /** The envelope's `attachment` items, for handlers whose items refer to them (a feedback's screenshot). */
  attachments: readonly EnvelopeItemInput[];
  /**
   * Counts what became of items in the project's outcomes (the stats endpoints): e.g.
   * `outcome("monitor", "invalid", "payload", 1)` for a check-in that does not parse.
   */
  outcome(
    category: string,
    outcome: "accepted" | "filtered" | "invalid" | "rate_limited",
    reason: string,
    quantity: number,
  ): void;
}

/**
 * A plugin that keeps envelope items other than error events (crons' `check_in`, user feedback,
 * release health's `session`/`sessions`). Ingest hands it the items of its `itemTypes` from each
 * envelope once the DSN key is authenticated and the envelope's events are accepted; without a
 * handler, such items are accepted and dropped (as before). docs/ingest.md, "Other envelope items".
 *
 * An item that does not parse is the handler's to drop and count (`outcome(…, "invalid", …)`):
 * the envelope is still accepted, as Relay does. Throw only when the item could not be kept for a
 * reason the SDK should retry (a database outage): the request then fails with 503.
 */
export interface EnvelopeItemHandler {
  readonly itemTypes: readonly string[];
  accept(items: readonly EnvelopeItemInput[], context: EnvelopeItemContext): Promise<void>;
}

/** Register one per plugin (`registerFactory`); ingest resolves them all. */
export const EnvelopeItemHandlerToken: InjectionToken<EnvelopeItemHandler> = Symbol("faultline.EnvelopeItemHandler");

/** The types some handler takes, plus attachments when any handler is registered (they may refer to them). */
export function handledItemTypes(handlers: readonly EnvelopeItemHandler[]): Set<string> {
  const types = new Set(handlers.flatMap((handler) => handler.itemTypes));
  if (types.size > 0) types.add("attachment");
  return types;
}

/** Hands each handler the items of its types, in the envelope's order; handlers run one after another. */
export async function dispatchItems(
  handlers: readonly EnvelopeItemHandler[],
  items: readonly EnvelopeItemInput[],
  context: Omit<EnvelopeItemContext, "attachments">,
): Promise<void> {
  if (items.length === 0) return;
  const attachments = items.filter((item) => item.type === "attachment");
  for (const handler of handlers) {
    const mine = items.filter((item) => handler.itemTypes.includes(item.type));
    if (mine.length > 0) await handler.accept(mine, { ...context, attachments });
  }
}
