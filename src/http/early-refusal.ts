import type { DependencyContainer, InjectionToken } from "tsyringe";
import type { WireReply } from "./wire.js";

/** What is known of a request before its body is read or a `Request` is built: its line and headers. */
export interface EarlyRequest {
  method: string;
  /** The path below the mount prefix, without the query. */
  path: string;
  /** The query string without `?` (empty when none). */
  query: string;
  /** A header's value, by lower-case name. */
  header(name: string): string | undefined;
}

/**
 * A plugin's refusal decided from the request line and headers alone (docs/http.md, "Early
 * refusal"): ingest past its capacity answers 429 before the body is read, at the cost of a bare
 * server's refusal. `refuse` must be cheap for every request it does not refuse (a path test, a
 * flag): null when it lets the request through.
 */
export interface EarlyRefusal {
  refuse(request: EarlyRequest): Promise<WireReply> | null;
}

/** Register one per plugin (`registerFactory`); the pipeline asks each in turn. */
export const EarlyRefusalToken: InjectionToken<EarlyRefusal> = Symbol("faultline.EarlyRefusal");

/** The check a handler carries for Node adapters (a registered symbol: adapters and core may be bundled apart). */
export const EARLY_REFUSAL = Symbol.for("faultline.earlyRefusal");
export type EarlyRefusalCheck = (request: EarlyRequest) => Promise<WireReply> | null;

/** The container's refusals, resolved on the first request (plugins' services are built lazily). */
export function earlyRefusalCheck(container: DependencyContainer): EarlyRefusalCheck {
  let refusals: readonly EarlyRefusal[] | undefined;
  return (request) => {
    refusals ??= container.isRegistered(EarlyRefusalToken, true) ? container.resolveAll(EarlyRefusalToken) : [];
    for (const refusal of refusals) {
      const reply = refusal.refuse(request);
      if (reply) return reply;
    }
    return null;
  };
}
