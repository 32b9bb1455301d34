import { registerFactory } from "../../container/container.js";
import { Db, Logger, Options } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { EnvelopeItemHandlerToken } from "../ingest/index.js";
import { ReleaseDetailContributorToken } from "../releases/index.js";
import { SessionBuffer } from "./buffer.js";
import { sessionItemHandler } from "./handler.js";
import { releaseHealthContributor } from "./health.js";
import { releaseHealthMigrations } from "./migrations.js";
import { releaseHealthRetentionTask } from "./retention.js";
import { releaseHealthEndpoints } from "./routes.js";
import { SessionBufferToken } from "./tokens.js";

/** How often buffered session counts are written: what a crashed process can lose, and how far other instances lag. */
const SESSION_FLUSH_INTERVAL_MS = 1_000;

/**
 * Release health (docs/release-health.md): the `session` and `sessions` envelope items SDKs send,
 * counted per project, release, environment and hour; Sentry's sessions endpoint, and
 * `healthData` on the release endpoints (`health=1`).
 */
export const releaseHealthPlugin = definePlugin({
  id: "release-health",
  dependencies: ["organizations", "ingest", "releases"],
  migrations: releaseHealthMigrations,
  register(container) {
    registerFactory(
      container,
      SessionBufferToken,
      (c) => new SessionBuffer(() => c.resolve(Db), c.resolve(Logger), c.resolve(Options).schema),
    );
    registerFactory(container, EnvelopeItemHandlerToken, (c) => sessionItemHandler(c.resolve(SessionBufferToken)));
    registerFactory(container, ReleaseDetailContributorToken, (c) =>
      releaseHealthContributor(() => c.resolve(Db), c.resolve(SessionBufferToken)),
    );
  },
  init: ({ container }) => container.resolve(SessionBufferToken).start(SESSION_FLUSH_INTERVAL_MS),
  endpoints: releaseHealthEndpoints,
  tasks: [releaseHealthRetentionTask],
  api: (container) => ({
    releaseHealth: {
      /** Writes this instance's buffered session counts now (they are written every second anyway). */
      flush: () => container.resolve(SessionBufferToken).flush(),
    },
  }),
  // Closes before ingest does (reverse dependency order): sessions of requests ingest still
  // finishes afterwards are written as they come (SessionBuffer.close).
  close: ({ container }) => container.resolve(SessionBufferToken).close(),
});

export type {
  ReleaseHealthBucketsTable,
  ReleaseHealthUnhealthySessionsTable,
  ReleaseHealthUsersTable,
} from "./tables.js";
