import { z } from "zod";
import type { PrincipalInput } from "./auth/principal.js";
import type { Clock } from "./clock.js";
import { type DatabaseInput, isConnectionString, isKysely, isPGlite, isPgPool } from "./db/connect.js";
import { SCHEMA_NAME_PATTERN } from "./db/identifiers.js";
import { DEFAULT_RETRY_DELAYS } from "./delivery/schedule.js";
import { DEFAULT_BODY_LIMIT } from "./http/body.js";
import { DEFAULT_BODY_DEPTH, DEFAULT_URL_LENGTH } from "./http/input-policy.js";
import type { Logger } from "./logging/logger.js";
import type { MetricsOptions } from "./observability/metrics.js";
import type { FaultlinePlugin } from "./plugin/plugin.js";

/** Maps a host's own session (cookie, JWT…) to a Faultline principal; `null` falls through to bearer tokens. */
export type AuthenticateHook = (request: Request) => Promise<PrincipalInput | null> | PrincipalInput | null;

const isFunction = (value: unknown) => typeof value === "function";
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function isDatabaseInput(value: unknown): value is DatabaseInput {
  if (typeof value === "string") return isConnectionString(value);
  if (isFunction(value) || isKysely(value) || isPGlite(value) || isPgPool(value)) return true;
  if (isObject(value) && Object.keys(value).length === 1 && value.inMemory === true) return true;
  return isObject(value) && typeof value.dataDir === "string" && value.dataDir !== "";
}

/** An empty string is most often `process.env.DATABASE_URL` set to nothing: say so. */
function databaseInputMessage(input: unknown): string {
  if (input === "") {
    return 'is an empty string (is DATABASE_URL set but empty?); give a postgres:// URL, "memory://" for a throwaway in-memory database, or leave `database` out to use DATABASE_URL or the embedded data directory .faultline/data';
  }
  return 'expected a postgres:// connection string, "memory://", { inMemory: true }, { dataDir }, a pg Pool, a PGlite instance, a Kysely instance, or a function returning one';
}

const isLogger = (value: unknown): value is Logger =>
  isObject(value) &&
  ["debug", "info", "warn", "error"].every((level) => isFunction(value[level])) &&
  (value.child === undefined || isFunction(value.child));

/** A prom-client Registry (the host's copy of prom-client may be another version than ours: duck-typed). */
const isRegistry = (value: unknown): value is NonNullable<MetricsOptions["registry"]> =>
  isObject(value) && ["registerMetric", "metrics", "getSingleMetric"].every((method) => isFunction(value[method]));

const isPlugin = (value: unknown): value is FaultlinePlugin => isObject(value) && typeof value.id === "string";

/** Says whether a member's address may be mailed (`notifications.verifiedAddress`). */
export type VerifiedAddress = (user: { userId: number; email: string }) => boolean | Promise<boolean>;

export const optionsSchema = z.strictObject({
  /**
   * Where data lives. Absent → `DATABASE_URL` when set, else embedded PGlite on disk in
   * `.faultline/data` (under the working directory). In memory only when asked for:
   * `{ inMemory: true }` or `"memory://"`. See {@link DatabaseInput}.
   */
  database: z
    .custom<DatabaseInput>(isDatabaseInput, { error: (issue) => databaseInputMessage(issue.input) })
    .optional(),
  /** PostgreSQL schema holding every Faultline table. */
  schema: z
    .string()
    .regex(SCHEMA_NAME_PATTERN, 'must be a lowercase PostgreSQL identifier such as "faultline"')
    .default("faultline"),
  /** Mount prefix used when a request does not say its own (`/faultline`); "" at the root. */
  basePath: z
    .string()
    .regex(/^(\/[^/?#]+)*$/, 'must be "" or start with "/" and not end with "/"')
    .default(""),
  /** Public origin for generated URLs (DSNs, Link headers) when the request's own origin is not it. */
  publicUrl: z.url().optional(),
  /**
   * Issue permalink for the `permalink` field, with `{organization}`, `{issueId}` and `{shortId}`
   * placeholders (`https://app.example.com/{organization}/issues/{issueId}`); absent → null.
   */
  permalinkTemplate: z.string().min(1).optional(),
  /**
   * Where Faultline logs: a pino logger (`pino()`, or a child of yours) or any object with
   * `debug`, `info`, `warn` and `error` taking `(obj, msg)` or `(msg)`, and optionally `child`.
   * Default: warnings and errors as JSON lines on stderr.
   */
  logger: z
    .custom<Logger>(isLogger, {
      message: "expected a pino-compatible logger (debug, info, warn, error; child optional)",
    })
    .optional(),
  /** Prometheus metrics (`faultline.metrics`). */
  metrics: z
    .strictObject({
      /** A prom-client Registry of the host's to register Faultline's metrics in; absent: the instance's own. */
      registry: z
        .custom<NonNullable<MetricsOptions["registry"]>>(isRegistry, { message: "expected a prom-client Registry" })
        .optional(),
      /** Prepended to every metric name; two instances sharing one registry need different ones. */
      prefix: z
        .string()
        .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'must be a Prometheus metric name prefix such as "faultline_"')
        .default("faultline_"),
    })
    .prefault({}),
  /** Readiness (`faultline.health.ready`): what counts as not ready. */
  health: z
    .strictObject({
      /** Each readiness check gives up (and fails) after this many milliseconds. */
      timeoutMs: z.number().int().min(50).max(60_000).default(2_000),
      /** A background task whose next run is this late means a dead worker (only where this instance runs one). */
      workerStallMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
      /** Not ready while the oldest queued event has waited longer than this (queued ingest); 0 leaves lag out. */
      maxQueueLagMs: z.number().int().min(0).max(86_400_000).default(300_000),
      /** Not ready while more events than this are queued; absent: `ingest.maxQueueDepth` (where ingest answers 429); 0 leaves depth out. */
      maxQueueDepth: z.number().int().min(0).max(100_000_000).optional(),
    })
    .prefault({}),
  authenticate: z
    .custom<AuthenticateHook>(isFunction, { message: "expected a function (request) => principal | null" })
    .optional(),
  /**
   * API tokens found are trusted for `ttlMs` without reading them again (default 5000; 0 turns
   * the cache off). Revoking or re-scoping a token through this instance takes effect at once;
   * through another process, within `ttlMs`. Expiry is checked on every request.
   */
  tokenCache: z
    .strictObject({
      ttlMs: z.number().int().min(0).max(60_000).default(5000),
      maxEntries: z.number().int().min(1).max(1_000_000).default(10_000),
    })
    .prefault({}),
  plugins: z
    .array(z.custom<FaultlinePlugin>(isPlugin, { message: "expected a plugin object with an id" }))
    .readonly()
    .default([]),
  limits: z
    .strictObject({
      bodyBytes: z.number().int().positive().default(DEFAULT_BODY_LIMIT),
      /** Longest path + query accepted (414 beyond). Paginated lists stop at 6 KiB: their `Link` header repeats the URL. */
      urlLength: z.number().int().min(256).max(65_536).default(DEFAULT_URL_LENGTH),
      /** Deepest nesting of a JSON body (400 beyond); the body itself is level 1. */
      bodyDepth: z.number().int().min(2).max(512).default(DEFAULT_BODY_DEPTH),
    })
    .prefault({}),
  /** Connections to PostgreSQL (a connection string or a pg Pool). */
  connection: z
    .strictObject({
      /**
       * A pool Faultline creates from a connection string gives up on getting a connection
       * (opening one, or waiting for a free one) after this many milliseconds: a request during
       * an outage gets 503 with Retry-After instead of hanging. Default 10000. A host's Pool keeps
       * its own `connectionTimeoutMillis`.
       */
      timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
      /**
       * On startup (`ready()`, or the first request), keep retrying an unreachable database for up
       * to this many milliseconds before failing. Default 0: fail at once with one
       * DatabaseUnavailableError.
       */
      startupWaitMs: z.number().int().min(0).max(3_600_000).default(0),
    })
    .prefault({}),
  /** Apply pending migrations during init (default true); turn off when deploys run `faultline migrate`. */
  autoMigrate: z.boolean().default(true),
  /** Webhook and service hook delivery. */
  delivery: z
    .strictObject({
      /** A destination must answer within this many milliseconds (default 5000). */
      timeoutMs: z.number().int().min(100).max(60_000).default(5000),
      /** Delays in seconds between attempts (default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h). */
      retryDelays: z
        .array(
          z
            .number()
            .min(0)
            .max(7 * 86_400),
        )
        .max(50)
        .default([...DEFAULT_RETRY_DELAYS]),
      /** Allow destinations on loopback/private networks (development and tests only). */
      allowPrivateNetworks: z.boolean().default(false),
      /** Deliveries sent at the same time by one worker. */
      concurrency: z.number().int().min(1).max(1000).default(64),
      /** How often the worker looks for due deliveries when nothing woke it. */
      pollIntervalMs: z.number().int().min(10).max(600_000).default(1000),
      /** Delivered, failed and cancelled deliveries are pruned after this many days. */
      retentionDays: z.number().int().min(1).max(3650).default(30),
    })
    .prefault({}),
  /** How accepted events reach storage (docs/issues.md, "Queued ingest (the default)"). */
  ingest: z
    .strictObject({
      /**
       * `true` (default): an ingest request answers once its events are durably queued; the
       * `ingest.digest` task groups and stores them in large batches shortly after (issues and
       * counters lag by well under 1 s where a worker runs). `false`: it answers after its events
       * are grouped and stored.
       */
      queued: z.boolean().default(true),
      /** Queued mode: past this many queued events, ingest answers 429 with `Retry-After` (back-pressure). */
      maxQueueDepth: z.number().int().min(1).max(100_000_000).default(100_000),
      /**
       * Queued mode, load shedding: while this process's event loop was delayed by more than this
       * many milliseconds in the last 100 ms window, ingest answers 429 (`overloaded`) so that the
       * host's own routes stay responsive. `null` (default): off. 30 is recommended for hosts that
       * serve their own routes from the same process on PostgreSQL (docs/operations.md).
       */
      shedAtEventLoopDelayMs: z.number().int().min(20).max(60_000).nullable().default(null),
      /**
       * Queued mode: where the CPU half of accepting an event runs (docs/ingest.md, "Isolation").
       * `"threads"` (default): decompressing, parsing, validating and normalising run in a small
       * pool of worker threads, off the host's event loop; the host's thread reads the body, checks
       * the DSN key and limits, commits the queue row and replies. Falls back to `"inline"` where the
       * worker's file is not beside Faultline's bundle (a bundler moved it). `"inline"`: all of it on
       * the host's thread. Direct ingest (`queued: false`) is always inline.
       */
      isolation: z.enum(["threads", "inline"]).default("threads"),
      /** Worker threads of `isolation: "threads"`; absent: one per core beyond the first, at most 2 (at least 1). */
      threads: z.number().int().min(1).max(16).optional(),
      /** Queued mode: events the digest claims and stores per transaction. */
      digestBatchSize: z.number().int().min(1).max(10_000).default(500),
      /**
       * Queued mode: digest batches this process runs at once while the queue is backed up, each
       * in its own transaction. Worth 2 when batches touch many distinct issues (+11 % digest
       * throughput with ~450 issues per batch of 500), and on a `faultline worker` process that
       * serves nothing else; with few issues per batch the batches queue on the same issue rows
       * and one at a time is faster (docs/performance.md). Embedded PGlite has one connection:
       * its batches run one after another whatever this says.
       */
      digestConcurrency: z.number().int().min(1).max(16).default(1),
    })
    .prefault({}),
  /** Artifact bundles (source maps) uploaded by sentry-cli: what one bundle may unpack to. Past either limit its assembly ends in `error` saying which. */
  releases: z
    .strictObject({
      /** Bytes all files of one bundle may unpack to (default 512 MiB). Memory does not grow with it: files are stored in 1 MiB pieces as they inflate. */
      maxBundleBytes: z
        .number()
        .int()
        .min(1024 * 1024)
        .max(2 ** 31 - 1)
        .default(512 * 1024 * 1024),
      /** Files one bundle may hold (default 20000). */
      maxBundleFiles: z.number().int().min(1).max(1_000_000).default(20_000),
    })
    .prefault({}),
  /**
   * How long events are kept (docs/operations.md, "Retention"). Events older than `days`
   * (by when they were received) expire with the weekly partition holding them; a project's own
   * `retention_days` (`faultline.api.retention.setProjectDays`) overrides it. Give every instance
   * and `faultline retention run --days` the same value.
   */
  retention: z
    .strictObject({
      /** Days events are kept (default 90, as on sentry.io's plans); 1–3650. */
      days: z.number().int().min(1).max(3650).default(90),
    })
    .prefault({}),
  /**
   * Email and chat notifications (docs/notifications.md): alert-rule actions and the personal
   * workflow notifications (assigned, comments, regressions, resolved, snooze lifted).
   */
  notifications: z
    .strictObject({
      /**
       * Email over SMTP (nodemailer): `url` is `smtp://user:pass@host:587` (STARTTLS when the server
       * offers it) or `smtps://…:465` (TLS); `from` the sender (`Faultline <errors@example.com>`).
       * Absent: `FAULTLINE_SMTP_URL` and `FAULTLINE_EMAIL_FROM` when set, else no email.
       */
      email: z
        .strictObject({
          url: z
            .string()
            .regex(/^smtps?:\/\/[^/]/, 'must be an smtp:// or smtps:// URL such as "smtp://mail.example.com:587"'),
          from: z.string().trim().min(3),
        })
        .optional(),
      /** Where the dashboard is mounted (`https://app.example.com/admin/errors`): notifications link the issue's page there. */
      dashboardUrl: z.url().optional(),
      /**
       * Whether a member's address may be mailed: `({ userId, email }) => boolean` (may be async),
       * for hosts that verify addresses. Absent: every address on record is (the host or SCIM owns them).
       */
      verifiedAddress: z
        .custom<VerifiedAddress>(isFunction, { message: "expected a function ({ userId, email }) => boolean" })
        .optional(),
      /** At most one email per user and issue this often (default 5 minutes); more within it are sent as one digest. 0: no throttle. */
      minIntervalMinutes: z.number().int().min(0).max(1440).default(5),
    })
    .prefault({}),
  /**
   * Run background tasks (purges, snooze expiry, deliveries) in this process, started on init.
   * `false` when a separate process runs `faultline.worker.start()`.
   */
  worker: z.boolean().default(true),
  clock: z
    .custom<Clock>((value) => isObject(value) && isFunction(value.now), { message: "expected { now(): Date }" })
    .optional(),
});

export type FaultlineOptions = z.input<typeof optionsSchema>;
export type ResolvedOptions = z.output<typeof optionsSchema>;

/** Validates options once, failing fast with a message that names the offending option. */
export function resolveOptions(input: unknown): ResolvedOptions {
  const result = optionsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const messages = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => `unknown option "${[...issue.path, key].join(".")}"`).join("; ");
    }
    return `option "${issue.path.join(".") || "(root)"}": ${issue.message}`;
  });
  throw new TypeError(`Invalid Faultline options: ${messages.join("; ")}`);
}
