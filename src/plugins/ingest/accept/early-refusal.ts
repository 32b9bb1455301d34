import type { EarlyRefusal, EarlyRequest } from "../../../http/early-refusal.js";
import { wireReplyOf } from "../../../http/wire.js";
import { ingestErrorReply } from "./cors.js";
import { publicKeyFromRequest } from "./dsn-auth.js";
import type { IngestService } from "./service.js";

const INGEST_PATH = /^\/api\/([^/]+)\/(?:envelope|store)\/?$/;
const AUTH_HEADERS = ["x-sentry-auth", "x-svc-auth", "authorization"] as const;

/**
 * Ingest past its capacity (a saturated loop or thread pool, a full queue) answers 429 from the
 * request line, before the body is read or a `Request` built (docs/ingest.md, "Early refusal"):
 * in a storm the host's thread then spends on a refusal what a bare server would. Any other
 * request, and every request while there is capacity, costs one regular expression test and a flag.
 */
export function ingestEarlyRefusal(service: () => IngestService): EarlyRefusal {
  return {
    refuse(request) {
      if (request.method !== "POST") return null;
      const project = INGEST_PATH.exec(request.path)?.[1];
      if (project === undefined) return null;
      const refusal = service().earlyRefusal(project, () => claimedKey(request));
      return refusal && refusal.then((error) => wireReplyOf(ingestErrorReply(error)));
    },
  };
}

/** The key as the request line and headers name it (read only when the request is refused, to count it). */
function claimedKey(request: EarlyRequest): string | null {
  const headers = new Headers();
  for (const name of AUTH_HEADERS) {
    const value = request.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  return publicKeyFromRequest(headers, new URLSearchParams(request.query));
}
