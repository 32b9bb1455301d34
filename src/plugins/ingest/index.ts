import { registerFactory } from "../../container/container.js";
import { Clock, Db } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { EventSinkToken } from "../issues/ingest/port.js";
import { ingestErrorRenderer } from "./cors.js";
import { captureInProject, type ProjectTarget } from "./in-process.js";
import { KEY_CACHE_TTL_MS, RATE_LIMIT_WINDOW_MS } from "./limits.js";
import { ProjectKeyResolver } from "./project-keys.js";
import { FixedWindowRateLimiter } from "./rate-limit.js";
import { ingestEndpoints } from "./routes.js";
import { IngestService } from "./service.js";
import { IngestServiceToken } from "./tokens.js";

/** Sentry-compatible ingestion (api.md §6.1): the envelope and store endpoints real SDKs post to. */
export const ingestPlugin = definePlugin({
  id: "ingest",
  dependencies: ["organizations", "issues"],
  register(container) {
    // One service per instance: its key cache and rate-limit counters are never shared between instances.
    registerFactory(container, IngestServiceToken, (c) => {
      const clock = c.resolve(Clock);
      const keys = new ProjectKeyResolver(() => c.resolve(Db), clock, KEY_CACHE_TTL_MS);
      return new IngestService(keys, c.resolve(EventSinkToken), new FixedWindowRateLimiter(RATE_LIMIT_WINDOW_MS), clock);
    });
  },
  endpoints: ingestEndpoints,
  errorRenderer: ingestErrorRenderer,
  api: (container) => ({
    events: {
      /** Stores an event for a project (by id or slug) as if an SDK had sent it; resolves once committed. */
      capture: (project: ProjectTarget, event: Record<string, unknown>) => captureInProject(container, project, event),
    },
  }),
});

export { IngestServiceToken } from "./tokens.js";
export { parseEnvelope, type Envelope, type EnvelopeItem } from "./envelope.js";
