import { idString, isoDate } from "../../../http/format.js";
import type { StoredEvent } from "../../event-store/index.js";

type Json = Record<string, unknown>;

const record = (value: unknown): Json | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const integer = (value: unknown): number | null =>
  typeof value === "number" && Number.isInteger(value) ? value : null;
const lines = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((line): line is string => typeof line === "string") : [];

/**
 * A URL without what may carry a secret: the query string, the fragment and any user:password
 * (`https://a:b@shop.test/cart?token=…#x` → `https://shop.test/cart`); a path keeps its path.
 */
export function withoutSecrets(url: string | null): string | null {
  if (url === null) return null;
  if (URL.canParse(url)) {
    const parsed = new URL(url);
    if (parsed.origin !== "null") return `${parsed.origin}${parsed.pathname}`;
  }
  return url.split(/[?#]/)[0] ?? "";
}

/** The frame's source lines as Sentry's `context`: `[[lineNo, line], …]`, empty without a line number. */
function contextOf(frame: Json): Array<[number, string]> {
  const lineNo = integer(frame.lineno);
  const current = text(frame.context_line);
  if (lineNo === null || current === null) return [];
  const before = lines(frame.pre_context);
  const all = [...before, current, ...lines(frame.post_context)];
  return all.map((line, index) => [lineNo - before.length + index, line]);
}

/** A stack frame's location and source lines: never its `vars` (local variables hold secrets). */
function sharedFrame(frame: Json) {
  return {
    filename: withoutSecrets(text(frame.filename)),
    absPath: withoutSecrets(text(frame.abs_path)),
    module: text(frame.module),
    function: text(frame.function),
    lineNo: integer(frame.lineno),
    colNo: integer(frame.colno),
    inApp: frame.in_app === true,
    context: contextOf(frame),
  };
}

function exceptionValues(payload: Json): Json[] {
  const exception = payload.exception;
  const values = Array.isArray(exception) ? exception : record(exception)?.values;
  return Array.isArray(values) ? values.map(record).filter((value): value is Json => value !== null) : [];
}

/** The exception entry: types, values, mechanisms' handled flag, frames (sharedFrame). */
function exceptionEntry(payload: Json) {
  const values = exceptionValues(payload).map((exception) => {
    const frames = record(exception.stacktrace)?.frames;
    const mechanism = record(exception.mechanism);
    return {
      type: text(exception.type),
      value: text(exception.value),
      module: text(exception.module),
      mechanism: mechanism && { type: text(mechanism.type), handled: mechanism.handled === false ? false : null },
      stacktrace: Array.isArray(frames)
        ? {
            frames: frames
              .map(record)
              .filter((frame): frame is Json => frame !== null)
              .map(sharedFrame),
          }
        : null,
    };
  });
  return values.length === 0 ? [] : [{ type: "exception", data: { values } }];
}

function messageEntry(payload: Json) {
  const logentry = record(payload.logentry) ?? record(payload.message);
  const formatted = text(logentry?.formatted) ?? text(logentry?.message) ?? text(payload.message);
  return formatted === null ? [] : [{ type: "message", data: { formatted } }];
}

/** The request's method and URL only: no query string, cookies, headers, body or environment. */
function requestEntry(payload: Json) {
  const request = record(payload.request);
  if (!request) return [];
  return [{ type: "request", data: { method: text(request.method), url: withoutSecrets(text(request.url)) } }];
}

/**
 * The latest event of a shared issue (docs/issues.md, "Public sharing"), built from an allowlist:
 * its message, exception (frames without local variables) and request (method and URL without its
 * query). Nothing of the user, tags, contexts, `extra`, breadcrumbs or request headers is read.
 */
export function serializeSharedEvent(event: StoredEvent) {
  const payload = event.payload;
  return {
    id: event.event_id,
    eventID: event.event_id,
    groupID: idString(event.issue_id),
    title: event.title,
    message: event.message,
    culprit: event.culprit,
    location: event.location,
    platform: event.platform,
    type: event.type,
    dateCreated: isoDate(event.timestamp),
    dateReceived: isoDate(event.received),
    entries: [...exceptionEntry(payload), ...messageEntry(payload), ...requestEntry(payload)],
  };
}
