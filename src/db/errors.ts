/** PostgreSQL's unique_violation (both `pg` and PGlite expose the SQLSTATE as `code`). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

/**
 * A deadlock (40P01) or serialization failure (40001): another transaction's lock order, not a
 * fault of this one, which can run again at once.
 */
export function isDeadlockOrSerializationFailure(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "40P01" || code === "40001";
}

/**
 * A PostgreSQL data exception (SQLSTATE class 22: invalid byte sequence 22021, untranslatable
 * character 22P05, datetime overflow 22008, invalid text representation 22P02…) or an input too
 * deep for its parser (54001). These mean a request value the input policy let through is one
 * the database cannot hold: the backstop renders them 400 rather than 500.
 */
export function isDataException(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && (code.startsWith("22") || code === "54001");
}

/**
 * SQLSTATEs of a lost or refused connection: class 08 (connection exception), the server shutting
 * the session down (57P01 admin_shutdown, e.g. pg_terminate_backend; 57P02 crash_shutdown; 57P03
 * cannot_connect_now while starting or in recovery) and 53300 too_many_connections.
 */
const CONNECTION_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** Socket errors of an unreachable or vanished server (a host name that does not resolve at all is configuration, not an outage). */
const CONNECTION_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EAI_AGAIN",
]);

/**
 * `pg` reports a dead socket, a client made unusable by one and its pool's connect timeout with
 * plain Errors and these messages (pg 8 / pg-pool 3).
 */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

/**
 * True when `error` (or its `cause`, or one of an AggregateError's `errors`) means the database
 * could not be reached or the connection was lost: a condition that passes (retry later), not a
 * bug in the request. The HTTP layer answers these with 503 and `Retry-After`.
 */
export function isConnectionFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 5) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (
    typeof code === "string" &&
    (code.startsWith("08") || CONNECTION_SQLSTATES.has(code) || CONNECTION_ERRNOS.has(code))
  )
    return true;
  if (typeof message === "string" && PG_CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isConnectionFailure(inner, depth + 1))) return true;
  return cause !== undefined && isConnectionFailure(cause, depth + 1);
}

/** Startup could not reach the database (after `connection.startupWaitMs`, if set); `cause` is the last connection error. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * `autoMigrate: false` and the schema lacks migrations this version needs: startup stops here
 * rather than failing query by query. Requests answer 503 with this message until the migrations
 * are applied (`faultline migrate`); the next request or `ready()` checks again.
 */
export class MigrationsPendingError extends Error {
  constructor(
    readonly schema: string,
    /** Names of the pending migrations, plugin ones as `plugin:name`. */
    readonly pending: readonly string[],
  ) {
    super(
      `Faultline's schema "${schema}" has ${pending.length} pending migration${pending.length === 1 ? "" : "s"} (${pending.join(", ")}) and autoMigrate is false: run \`faultline migrate\` (or faultline.migrate()) before starting, or set autoMigrate: true`,
    );
    this.name = "MigrationsPendingError";
  }
}

/** An error's message, or its code when it has none (Node's AggregateError of a refused connection). */
export function describeError(error: unknown): string {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return (typeof message === "string" && message) || (typeof code === "string" && code) || String(error);
}
