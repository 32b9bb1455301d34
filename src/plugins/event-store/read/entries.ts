import type { EventMessage } from "../grouping/index.js";

/**
 * The `entries` of a detailed event (exception, breadcrumbs, request, message), read from the
 * payload as the SDK sent it.
 * Payloads were only checked leniently at ingest, so every field is read defensively: a value of
 * the wrong type is shown as null (or left out), never a reason to fail the request.
 */

type Json = Record<string, unknown>;
type Pair = [string, string];

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
/** Sentry accepts both `{values: [...]}` and a bare list for exceptions, breadcrumbs and frames. */
const list = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : isObject(value) && Array.isArray(value.values) ? value.values : [];
const text = (value: unknown): string | null =>
  typeof value === "string" ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : null;
const integer = (value: unknown): number | null =>
  typeof value === "number" && Number.isInteger(value) ? value : null;
const lines = (value: unknown): string[] => (Array.isArray(value) ? value.map((line) => text(line) ?? "") : []);

/** Source lines around the frame's line, numbered: [[lineNo, line], …]. */
function frameContext(raw: Json, lineNo: number | null): Array<[number, string]> {
  const current = text(raw.context_line);
  if (lineNo === null || current === null) return [];
  const before = lines(raw.pre_context);
  const after = lines(raw.post_context);
  return [
    ...before.map((line, i): [number, string] => [lineNo - before.length + i, line]),
    [lineNo, current],
    ...after.map((line, i): [number, string] => [lineNo + 1 + i, line]),
  ];
}

function frame(raw: unknown) {
  const f = isObject(raw) ? raw : {};
  const lineNo = integer(f.lineno);
  return {
    filename: text(f.filename),
    absPath: text(f.abs_path),
    module: text(f.module),
    function: text(f.function),
    lineNo,
    colNo: integer(f.colno),
    // As in grouping: only an explicit `true` makes a frame in-app.
    inApp: f.in_app === true,
    context: frameContext(f, lineNo),
    // Native symbolication fields Sentry's frames carry (Faultline maps JavaScript only).
    package: text(f.package),
    platform: text(f.platform),
    instructionAddr: text(f.instruction_addr),
    symbolAddr: text(f.symbol_addr),
    symbol: text(f.symbol),
    trust: text(f.trust),
    vars: isObject(f.vars) ? f.vars : null,
    errors: null,
  };
}

function exceptionEntry(payload: Json) {
  const values = list(payload.exception).filter(isObject);
  if (values.length === 0) return null;
  // Cause first, main exception last, frames oldest first: the order SDKs send.
  const data = values.map((value) => {
    const frames = isObject(value.stacktrace) ? list(value.stacktrace.frames).map(frame) : null;
    // The frames as the SDK sent them, when processing (source maps) replaced the stack.
    const rawFrames = isObject(value.raw_stacktrace) ? list(value.raw_stacktrace.frames).map(frame) : null;
    return {
      type: text(value.type),
      value: text(value.value),
      module: text(value.module),
      mechanism: isObject(value.mechanism) ? value.mechanism : null,
      stacktrace: frames && {
        frames,
        framesOmitted: null,
        registers: null,
        hasSystemFrames: frames.some((f) => !f.inApp),
      },
      rawStacktrace: rawFrames && {
        frames: rawFrames,
        framesOmitted: null,
        registers: null,
        hasSystemFrames: rawFrames.some((f) => !f.inApp),
      },
      threadId: text(value.thread_id),
    };
  });
  const hasSystemFrames = data.some((value) => value.stacktrace?.hasSystemFrames === true);
  return { type: "exception", data: { values: data, excOmitted: null, hasSystemFrames } };
}

/** Breadcrumb times come as epoch seconds (with a fraction) or ISO strings; shown as ISO. */
function crumbTime(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) {
    const date = new Date(value * 1000);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  return text(value);
}

function breadcrumbsEntry(payload: Json) {
  const values = list(payload.breadcrumbs).filter(isObject);
  if (values.length === 0) return null;
  const data = values.map((crumb) => ({
    type: text(crumb.type) ?? "default",
    category: text(crumb.category),
    level: text(crumb.level) ?? "info",
    message: text(crumb.message),
    data: isObject(crumb.data) ? crumb.data : null,
    timestamp: crumbTime(crumb.timestamp),
    event_id: text(crumb.event_id),
  }));
  return { type: "breadcrumbs", data: { values: data } };
}

/** A header or query value: lists repeat the key (Node sends `set-cookie` as a list). */
function pairsOf(key: string, value: unknown): Pair[] {
  if (Array.isArray(value)) return value.flatMap((item) => pairsOf(key, item));
  if (value === null || value === undefined) return [];
  return [[key, typeof value === "string" ? value : JSON.stringify(value)]];
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Query strings, `{key: value}` objects and `[[key, value], …]` lists all become pairs. Lists and
 * query strings keep their order; an object's keys are sorted, as Relay does (and the payload is
 * jsonb, which keeps no key order anyway).
 */
export function pairs(value: unknown): Pair[] {
  if (typeof value === "string") return [...new URLSearchParams(value)];
  if (Array.isArray(value)) {
    return value.flatMap((pair) =>
      Array.isArray(pair) && pair.length === 2 && text(pair[0]) !== null
        ? pairsOf(text(pair[0]) as string, pair[1])
        : [],
    );
  }
  if (isObject(value))
    return Object.entries(value)
      .sort(byKey)
      .flatMap(([key, item]) => pairsOf(key, item));
  return [];
}

/** Relay moves a query string left in the URL into `query_string`; done here on read instead. */
function splitUrl(url: string | null, queryString: unknown): { url: string | null; query: Pair[] } {
  const query = pairs(queryString);
  if (url === null || query.length > 0) return { url, query };
  const at = url.search(/[?#]/);
  if (at === -1 || url[at] !== "?") return { url, query };
  const rest = url.slice(at + 1);
  return { url: url.slice(0, at), query: pairs(rest.replace(/#.*$/s, "")) };
}

function requestEntry(payload: Json) {
  const request = payload.request;
  if (!isObject(request)) return null;
  const { url, query } = splitUrl(text(request.url), request.query_string);
  return {
    type: "request",
    data: {
      url,
      method: text(request.method),
      query,
      headers: pairs(request.headers),
      data: request.data ?? null,
      fragment: text(request.fragment),
      cookies: request.cookies === undefined || request.cookies === null ? null : pairs(request.cookies),
      inferredContentType: null,
      env: isObject(request.env) ? request.env : null,
    },
  };
}

/** `params` of whichever of `logentry` / `message` carries the message (logentry wins, as in grouping). */
function messageParams(payload: Json): unknown {
  for (const candidate of [payload.logentry, payload.message]) {
    if (isObject(candidate) && (text(candidate.message) || text(candidate.formatted))) return candidate.params ?? [];
  }
  return [];
}

/**
 * Sentry's message entry: `formatted` always; `message` is the template only when it differs from
 * the formatted text (Relay moves a lone or equal template into `formatted`).
 */
function messageEntry(payload: Json, message: EventMessage) {
  if (message.formatted === null) return null;
  const template = message.template === message.formatted ? null : message.template;
  return {
    type: "message",
    data: { formatted: message.formatted, message: template, params: messageParams(payload) },
  };
}

/** The entries Sentry shows, in its display order; absent interfaces are left out. */
export function eventEntries(payload: Json, message: EventMessage) {
  return [
    exceptionEntry(payload),
    breadcrumbsEntry(payload),
    requestEntry(payload),
    messageEntry(payload, message),
  ].filter((entry) => entry !== null);
}
