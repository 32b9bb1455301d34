import { z } from "zod";
import { badRequest, zodFieldErrors } from "../../../http/errors.js";

/**
 * The shape of an incoming event, validated the way Sentry's ingestion (Relay) does: leniently.
 * Unknown fields are ignored; optional scalars of the wrong type are coerced to strings (a
 * numeric `release`) or dropped. Only structures whose type makes the event meaningless (an
 * `exception` that is a string, a `fingerprint` that is not a list) reject the event with a 400,
 * because guessing there would group the event wrongly.
 */

/** Strings as sent; numbers and booleans as their text; anything else treated as absent. */
function toText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") return String(value);
  return undefined;
}

// `.optional()` everywhere: zod 4 reports a missing key as invalid unless its schema is optional.
const text = z.unknown().transform(toText).optional();

/** An error message naming what was expected and what came (e.g. "expected an array, got string"). */
const expected = (what: string) => (issue: { input?: unknown }) => `expected ${what}, got ${describeType(issue.input)}`;

/** Exception values are free-form in Relay ("lenient string"): objects are kept as their JSON. */
const lenientText = z
  .unknown()
  .transform((value) => toText(value) ?? (value == null ? undefined : JSON.stringify(value)))
  .optional();

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `null` list entries are dropped, as Relay does, rather than rejecting the event. */
const listOf = <T extends z.ZodType>(item: T) =>
  z
    .array(item.nullable())
    .transform((items) => items.filter((entry): entry is NonNullable<z.output<T>> => entry != null));

const frameSchema = z.object(
  {
    filename: text,
    abs_path: text,
    module: text,
    function: text,
    // Read by stack trace and fingerprint rules (`stack.package`) only.
    package: text,
    in_app: z.unknown().optional(),
  },
  { error: expected("a stack frame object") },
);

const stacktraceSchema = z.object(
  { frames: listOf(frameSchema).nullish() },
  { error: expected("a stacktrace object with frames") },
);

/** Only what titles and tags read from a mechanism; a malformed one is ignored, not rejected. */
const mechanismSchema = z
  .unknown()
  .transform((value) =>
    isPlainObject(value)
      ? {
          type: toText(value.type),
          handled: typeof value.handled === "boolean" ? value.handled : undefined,
          synthetic: value.synthetic === true,
        }
      : undefined,
  )
  .optional();

const exceptionValueSchema = z.object(
  { type: text, value: lenientText, stacktrace: stacktraceSchema.nullish(), mechanism: mechanismSchema },
  { error: expected("an exception object") },
);

/** Sentry accepts `exception: {values: [...]}` and the older bare list `exception: [...]`. */
const exceptionSchema = z.preprocess(
  (value) => (Array.isArray(value) ? { values: value } : value),
  z.object(
    { values: listOf(exceptionValueSchema).nullish() },
    { error: expected("an object with `values` or an array") },
  ),
);

const logentrySchema = z.object({ message: text, formatted: text, params: z.unknown().optional() });

/** `logentry` (and the legacy top-level `message`) may be a plain string: the formatted text. */
const messageSchema = z.preprocess((value) => (isPlainObject(value) ? value : { formatted: value }), logentrySchema);

const fingerprintSchema = z.array(z.union([z.string(), z.number()], { error: expected("a string or a number") }), {
  error: expected("an array of strings"),
});

/** Tags come as `{key: value}` or as `[[key, value], …]`; entries are cleaned up in tags.ts. */
const tagsSchema = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())], {
  error: expected("an object or an array of [key, value] pairs"),
});

const userSchema = z.object(
  { id: text, email: text, username: text, ip_address: text, name: text },
  { error: expected("an object") },
);

/** Only the request URL is used (a last-resort culprit, the `url` tag); a malformed request is ignored. */
const requestSchema = z
  .unknown()
  .transform((value) => (isPlainObject(value) ? { url: toText(value.url) } : undefined))
  .optional();

const rawEventSchema = z.object(
  {
    // Scalars with their own lenient rules (see scalars.ts): validated there, never rejected.
    event_id: z.unknown().optional(),
    timestamp: z.unknown().optional(),
    level: z.unknown().optional(),
    platform: text,
    environment: text,
    release: text,
    dist: text,
    culprit: text,
    transaction: text,
    logger: text,
    server_name: text,
    /** Read leniently for derived tags (search-values.ts): any shape is accepted. */
    contexts: z.unknown().optional(),
    exception: exceptionSchema.nullish(),
    message: messageSchema.nullish(),
    logentry: messageSchema.nullish(),
    fingerprint: fingerprintSchema.nullish(),
    tags: tagsSchema.nullish(),
    user: userSchema.nullish(),
    request: requestSchema,
  },
  { error: expected("a JSON object") },
);

export type RawEvent = z.output<typeof rawEventSchema>;
export type RawExceptionValue = z.output<typeof exceptionValueSchema>;
export type RawFrame = z.output<typeof frameSchema>;
export type RawLogentry = z.output<typeof logentrySchema>;

/** Parses an event body; throws a 400 `Invalid event: <field>: <why>` naming the first bad field. */
export function parseRawEvent(raw: unknown): RawEvent {
  const result = rawEventSchema.safeParse(raw, { error: describeIssue });
  if (result.success) return result.data;
  const [first] = result.error.issues;
  const where = first && first.path.length > 0 ? `${first.path.map(String).join(".")}: ` : "";
  return rejectEvent(`${where}${first?.message ?? "invalid"}`, zodFieldErrors(result.error, "event"));
}

function rejectEvent(why: string, errors?: Record<string, string[]>): never {
  throw badRequest(`Invalid event: ${why}`, errors);
}

/** zod's default messages start with "Invalid input:", redundant after "Invalid event:". */
function describeIssue(issue: { code?: string; expected?: unknown; input?: unknown }): string | undefined {
  if (issue.code !== "invalid_type") return undefined;
  return `expected ${String(issue.expected)}, got ${describeType(issue.input)}`;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
