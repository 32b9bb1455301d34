import { z } from "zod";
import type { PrincipalInput } from "./auth/principal.js";
import type { Clock } from "./clock.js";
import { type DatabaseInput, isKysely, isPGlite, isPgPool } from "./db/connect.js";
import { SCHEMA_NAME_PATTERN } from "./db/identifiers.js";
import { DEFAULT_BODY_LIMIT } from "./http/body.js";
import type { Logger } from "./logging/logger.js";
import type { FaultlinePlugin } from "./plugin/plugin.js";

/** Maps a host's own session (cookie, JWT…) to a Faultline principal; `null` falls through to bearer tokens. */
export type AuthenticateHook = (request: Request) => Promise<PrincipalInput | null> | PrincipalInput | null;

const isFunction = (value: unknown) => typeof value === "function";
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function isDatabaseInput(value: unknown): value is DatabaseInput {
  if (typeof value === "string") return /^postgres(ql)?:\/\//.test(value);
  if (isFunction(value) || isKysely(value) || isPGlite(value) || isPgPool(value)) return true;
  return isObject(value) && typeof value.dataDir === "string" && value.dataDir !== "";
}

const isLogger = (value: unknown): value is Logger =>
  isObject(value) && ["debug", "info", "warn", "error"].every((level) => isFunction(value[level]));

const isPlugin = (value: unknown): value is FaultlinePlugin => isObject(value) && typeof value.id === "string";

export const optionsSchema = z.strictObject({
  /** Where data lives; absent → in-memory embedded PGlite. See {@link DatabaseInput}. */
  database: z
    .custom<DatabaseInput>(isDatabaseInput, {
      message: "expected a postgres:// connection string, a pg Pool, a PGlite instance, { dataDir }, a Kysely instance, or a function returning one",
    })
    .optional(),
  /** PostgreSQL schema holding every Faultline table. */
  schema: z.string().regex(SCHEMA_NAME_PATTERN, "must be a lowercase PostgreSQL identifier such as \"faultline\"").default("faultline"),
  /** Mount prefix used when a request does not say its own (`/faultline`); "" at the root. */
  basePath: z.string().regex(/^(\/[^/?#]+)*$/, "must be \"\" or start with \"/\" and not end with \"/\"").default(""),
  /** Public origin for generated URLs (DSNs, Link headers) when the request's own origin is not it. */
  publicUrl: z.url().optional(),
  /**
   * Issue permalink for the `permalink` field, with `{organization}`, `{issueId}` and `{shortId}`
   * placeholders (`https://app.example.com/{organization}/issues/{issueId}`); absent → null.
   */
  permalinkTemplate: z.string().min(1).optional(),
  logger: z.custom<Logger>(isLogger, { message: "expected a pino-compatible logger (debug, info, warn, error)" }).optional(),
  authenticate: z.custom<AuthenticateHook>(isFunction, { message: "expected a function (request) => principal | null" }).optional(),
  plugins: z.array(z.custom<FaultlinePlugin>(isPlugin, { message: "expected a plugin object with an id" })).readonly().default([]),
  limits: z.strictObject({ bodyBytes: z.number().int().positive().default(DEFAULT_BODY_LIMIT) }).prefault({}),
  /** Apply pending migrations during init (default true); turn off when deploys run `faultline migrate`. */
  autoMigrate: z.boolean().default(true),
  /**
   * Run background tasks (purges, snooze expiry, deliveries) in this process, started on init.
   * `false` when a separate process runs `faultline.worker.start()`.
   */
  worker: z.boolean().default(true),
  clock: z.custom<Clock>((value) => isObject(value) && isFunction(value.now), { message: "expected { now(): Date }" }).optional(),
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
