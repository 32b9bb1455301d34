import { pairs } from "./entries.js";

/**
 * The `_meta` of a detailed event: what ingest changed in the payload (data scrubbing's
 * remarks, docs/data-scrubbing.md, and what the SDK itself reported) moved from the payload's
 * paths to the paths of the event as the API shows it — Sentry's dashboard and tools read the
 * remarks there (`entries.<i>.data…`, `context` for `extra`, `packages` for `modules`).
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A payload's list interface's meta: `{values: {...}}` whether the SDK sent `{values: [...]}` or a bare list. */
function valuesMeta(meta: unknown): Json | undefined {
  if (!isObject(meta)) return undefined;
  return isObject(meta.values) ? { values: meta.values } : { values: meta };
}

/** Exceptions: the same paths, but `raw_stacktrace` is shown as `rawStacktrace`. */
function exceptionMeta(meta: unknown): Json | undefined {
  const shown = valuesMeta(meta);
  if (!shown || !isObject(shown.values)) return shown;
  const values = Object.fromEntries(
    Object.entries(shown.values).map(([index, value]) => {
      if (!isObject(value) || !("raw_stacktrace" in value)) return [index, value];
      const { raw_stacktrace: rawStacktrace, ...rest } = value;
      return [index, { ...rest, rawStacktrace }];
    }),
  );
  return { values };
}

/** Headers and cookies are shown as `[key, value]` pairs: a remark on a key's value moves to its pair's value. */
function pairsMeta(meta: unknown, value: unknown): Json | undefined {
  if (!isObject(meta)) return undefined;
  if (Array.isArray(value)) return meta; // already by index, as the pairs are
  const shown: Json = {};
  for (const [index, [key]] of pairs(value).entries()) {
    if (isObject(meta[key])) shown[String(index)] = { "1": meta[key] };
  }
  return shown;
}

function requestMeta(meta: unknown, request: unknown): Json | undefined {
  if (!isObject(meta) || !isObject(request)) return undefined;
  const shown: Json = {};
  if (meta.data !== undefined) shown.data = meta.data;
  if (meta.env !== undefined) shown.env = meta.env;
  const headers = pairsMeta(meta.headers, request.headers);
  if (headers) shown.headers = headers;
  const cookies = pairsMeta(meta.cookies, request.cookies);
  if (cookies) shown.cookies = cookies;
  return shown;
}

/** The message entry's `formatted`: from `logentry` (`formatted`, else its template) or a plain `message`. */
function messageMeta(meta: Json): Json | undefined {
  const source = meta.logentry ?? meta.message;
  if (!isObject(source)) return undefined;
  if ("" in source) return { formatted: source };
  const formatted = source.formatted ?? source.message;
  return formatted === undefined ? undefined : { formatted, ...(source.message ? { message: source.message } : {}) };
}

function entryMeta(type: string, meta: Json, payload: Json): Json | undefined {
  if (type === "exception") return exceptionMeta(meta.exception);
  if (type === "breadcrumbs") return valuesMeta(meta.breadcrumbs);
  if (type === "request") return requestMeta(meta.request, payload.request);
  if (type === "message") return messageMeta(meta);
  return undefined;
}

/** Tags are shown as `{key, value}` in the stored order: a remark on a tag's value moves to its index. */
function tagsMeta(meta: unknown, tags: ReadonlyArray<readonly [string, string]>): Json | undefined {
  if (!isObject(meta)) return undefined;
  const shown: Json = {};
  for (const [index, [key]] of tags.entries()) if (isObject(meta[key])) shown[String(index)] = { value: meta[key] };
  return Object.keys(shown).length > 0 ? shown : undefined;
}

/** `_meta` for the detailed event built from `payload`, its `entries` (in order) and its stored tags. */
export function eventMeta(
  payload: Json,
  entries: ReadonlyArray<{ type: string }>,
  tags: ReadonlyArray<readonly [string, string]>,
): Json {
  const meta = payload._meta;
  if (!isObject(meta)) return {};
  const shown: Json = {};
  const moves: Array<[string, unknown]> = [
    ["user", meta.user],
    ["contexts", meta.contexts],
    ["context", meta.extra],
    ["packages", meta.modules],
    ["sdk", meta.sdk],
    ["tags", tagsMeta(meta.tags, tags)],
  ];
  for (const [key, value] of moves) if (value !== undefined) shown[key] = value;
  const byEntry: Json = {};
  for (const [index, entry] of entries.entries()) {
    const data = entryMeta(entry.type, meta, payload);
    if (data !== undefined && Object.keys(data).length > 0) byEntry[String(index)] = { data };
  }
  if (Object.keys(byEntry).length > 0) shown.entries = byEntry;
  return shown;
}
