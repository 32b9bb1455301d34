/** The `entries` of an event (api.md §4.1), read from the payload the SDK sent. */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : isObject(value) && Array.isArray(value.values) ? value.values : []);
const str = (value: unknown): string | null => (typeof value === "string" ? value : typeof value === "number" ? String(value) : null);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** Frames oldest first (as sent), camelCase keys, source context as [[lineNo, line], …]. */
function frame(raw: unknown) {
  const f = isObject(raw) ? raw : {};
  const lineNo = num(f.lineno);
  const pre = Array.isArray(f.pre_context) ? f.pre_context.map(String) : [];
  const post = Array.isArray(f.post_context) ? f.post_context.map(String) : [];
  const context =
    lineNo !== null && typeof f.context_line === "string"
      ? [...pre.map((line, i) => [lineNo - pre.length + i, line]), [lineNo, f.context_line], ...post.map((line, i) => [lineNo + 1 + i, line])]
      : [];
  return {
    filename: str(f.filename),
    absPath: str(f.abs_path),
    module: str(f.module),
    function: str(f.function),
    lineNo,
    colNo: num(f.colno),
    inApp: f.in_app === true,
    context,
  };
}

function exceptionEntry(payload: Json) {
  const values = list(payload.exception).filter(isObject);
  if (values.length === 0) return null;
  return {
    type: "exception",
    data: {
      values: values.map((value) => ({
        type: str(value.type),
        value: str(value.value),
        module: str(value.module),
        mechanism: isObject(value.mechanism) ? value.mechanism : null,
        stacktrace: isObject(value.stacktrace) ? { frames: list(value.stacktrace.frames).map(frame) } : null,
      })),
    },
  };
}

function breadcrumbsEntry(payload: Json) {
  const values = list(payload.breadcrumbs).filter(isObject);
  if (values.length === 0) return null;
  return {
    type: "breadcrumbs",
    data: {
      values: values.map((crumb) => ({
        type: str(crumb.type) ?? "default",
        category: str(crumb.category),
        level: str(crumb.level) ?? "info",
        message: str(crumb.message),
        data: isObject(crumb.data) ? crumb.data : null,
        timestamp: typeof crumb.timestamp === "number" ? new Date(crumb.timestamp * 1000).toISOString() : str(crumb.timestamp),
      })),
    },
  };
}

/** Objects, query strings and pair lists all become [[key, value], …]. */
function pairs(value: unknown): Array<[string, string]> {
  if (typeof value === "string") return [...new URLSearchParams(value)];
  if (Array.isArray(value)) return value.filter((p): p is unknown[] => Array.isArray(p) && p.length === 2).map(([k, v]) => [String(k), String(v)]);
  if (isObject(value)) return Object.entries(value).map(([k, v]) => [k, String(v)]);
  return [];
}

function requestEntry(payload: Json) {
  const request = payload.request;
  if (!isObject(request)) return null;
  return {
    type: "request",
    data: { url: str(request.url), method: str(request.method), query: pairs(request.query_string), headers: pairs(request.headers), data: request.data ?? null },
  };
}

function messageEntry(payload: Json) {
  const logentry = isObject(payload.logentry) ? payload.logentry : null;
  const formatted = str(logentry?.formatted) ?? str(logentry?.message) ?? str(payload.message) ?? (isObject(payload.message) ? str(payload.message.formatted) : null);
  if (!formatted) return null;
  return { type: "message", data: { formatted, params: Array.isArray(logentry?.params) ? logentry.params : [] } };
}

export function eventEntries(payload: Json) {
  return [exceptionEntry(payload), breadcrumbsEntry(payload), requestEntry(payload), messageEntry(payload)].filter((entry) => entry !== null);
}
