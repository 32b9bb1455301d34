import { repairText, textProblem } from "../db/storable-text.js";
import { ApiError, type FieldErrors, fieldErrors } from "./errors.js";

export { repairText, textProblem };

/**
 * The one input policy of the HTTP layer, applied by the pipeline to every route (plugins' and
 * hosts' included) before any endpoint code runs:
 *
 * - the URL (path and query, as received) is at most `limits.urlLength` characters → else 414
 *   (the default, 16 KiB, is what Node's own HTTP server accepts, so every runtime answers alike;
 *   it leaves room for bulk requests naming 1000 issue ids). Lists answer 414 from 6 KiB on
 *   (pagination.ts): their `Link` header carries the URL twice;
 * - path parameters, query keys and values, and every string and object key of a JSON body contain
 *   no NUL character and no unpaired UTF-16 surrogate → else 400 naming the field. PostgreSQL
 *   refuses both in `text` and `jsonb`, so letting them through meant a 500 (or a lost write);
 * - a JSON body is nested at most `limits.bodyDepth` levels → else 400. Deeper values overflow the
 *   stack of `JSON.stringify` and of PostgreSQL's jsonb code.
 *
 * One walk over the parsed body, iterative (a 10,000-level body cannot overflow it). Ingested
 * events are not refused this way: they are repaired (see the issues plugin's event sanitiser).
 */

export const DEFAULT_URL_LENGTH = 16_384;
export const DEFAULT_BODY_DEPTH = 32;

/** 414 when the path and query are longer than the limit. */
export function checkUrlLength(url: URL, limit: number): void {
  const length = urlLength(url);
  if (length > limit) throw uriTooLong(length, limit);
}

export function urlLength(url: URL): number {
  return url.pathname.length + url.search.length;
}

export function uriTooLong(length: number, limit: number, why = ""): ApiError {
  return new ApiError(414, `Request URI too long (${length} characters; limit ${limit}${why})`);
}

/** 400 naming the first path parameter with bad text. */
export function checkPathParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    const problem = textProblem(value);
    if (problem) throw fieldErrors({ [name]: [`contains ${problem}`] });
  }
}

/** 400 naming the first query parameter with bad text, in its key or its value. */
export function checkQuery(params: URLSearchParams): void {
  for (const [key, value] of params) {
    const keyProblem = textProblem(key);
    if (keyProblem) throw fieldErrors({ [fieldName(key)]: [`key contains ${keyProblem}`] });
    const problem = textProblem(value);
    if (problem) throw fieldErrors({ [fieldName(key)]: [`contains ${problem}`] });
  }
}

/**
 * 400 for the first string or key with bad text, or the first value nested deeper than
 * `maxDepth` (the body itself is level 1). Field paths are dotted like validation errors
 * (`scopes.1`, `name.givenName`).
 */
export function checkJsonBody(body: unknown, maxDepth: number): void {
  const problem = findJsonProblem(body, maxDepth);
  if (problem) throw fieldErrors(problem);
}

interface Pending {
  value: unknown;
  path: string[];
  /** The last path segment is an object key (checked like a value), not an array index. */
  isKey: boolean;
}

/** The first problem of a parsed JSON value as field errors, or null. Iterative: depth cannot overflow it. */
export function findJsonProblem(root: unknown, maxDepth: number): FieldErrors | null {
  const stack: Pending[] = [{ value: root, path: [], isKey: false }];
  while (stack.length > 0) {
    const { value, path, isKey } = stack.pop() as Pending;
    const keyProblem = isKey ? textProblem(path.at(-1) as string) : null;
    if (keyProblem) return { [pathName(path)]: [`key contains ${keyProblem}`] };
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) return { [pathName(path)]: [`contains ${problem}`] };
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= maxDepth) return { [pathName(path)]: [`nested deeper than ${maxDepth} levels`] };
    const entries: Array<readonly [string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    // Pushed in reverse so the first field in document order is reported first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as readonly [string, unknown];
      stack.push({ value: child, path: [...path, key], isKey: !Array.isArray(value) });
    }
  }
  return null;
}

/** Paths in error messages stay short and printable, whatever the client sent. */
const MAX_SEGMENT = 64;
const MAX_SEGMENTS = 12;

function fieldName(key: string): string {
  const short = key.length > MAX_SEGMENT ? `${key.slice(0, MAX_SEGMENT)}…` : key;
  return repairText(short);
}

function pathName(path: readonly string[]): string {
  if (path.length === 0) return "body";
  const shown = path.length > MAX_SEGMENTS ? [...path.slice(0, MAX_SEGMENTS - 1), "…", path.at(-1) as string] : path;
  return shown.map(fieldName).join(".");
}
