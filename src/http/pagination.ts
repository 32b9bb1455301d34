import { sql, type RawBuilder } from "kysely";
import { z } from "zod";
import { ApiError } from "./errors.js";
import { uriTooLong, urlLength } from "./input-policy.js";

export const MAX_PAGE_SIZE = 100;

/**
 * `per_page` / `limit`: default 100; over 100 is clamped to 100 (as Sentry);
 * 0, negative or non-numeric → 400.
 */
export const pageSizeSchema = z
  .string()
  .regex(/^\d+$/, "must be a positive integer")
  .transform(Number)
  .refine((n) => n >= 1, "must be a positive integer")
  .transform((n) => Math.min(n, MAX_PAGE_SIZE))
  .optional()
  .transform((n) => n ?? MAX_PAGE_SIZE);

export const cursorSchema = z.string().optional();

/** A position in a list sorted descending by (key, id): `value:offset:is_prev` on the wire. */
export interface Cursor {
  /** Sort key of the boundary row (epoch ms for timestamps). */
  value: number;
  /** Row id of the boundary row: breaks ties among equal keys. */
  id: number;
  isPrev: boolean;
}

/** Values up to 16 digits: a timestamp key in epoch microseconds (the issue list's) has 16. */
const CURSOR_PATTERN = /^(-?\d{1,16}):(\d{1,15}):([01])$/;

export function parseCursor(raw: string | undefined): Cursor | null {
  if (raw === undefined || raw === "") return null;
  const match = CURSOR_PATTERN.exec(raw);
  const value = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(value)) throw new ApiError(400, "Invalid cursor parameter.");
  return { value, id: Number(match[2]), isPrev: match[3] === "1" };
}

export function formatCursor(cursor: Cursor): string {
  return `${cursor.value}:${cursor.id}:${cursor.isPrev ? 1 : 0}`;
}

/** How a repository should fetch one page: rows strictly beyond `after`, in `order`, at most `limit`. */
export interface KeysetBound {
  after: { value: number; id: number } | null;
  /** `desc` walks forward (next pages); `asc` walks back from the cursor (previous pages). */
  order: "asc" | "desc";
  limit: number;
}

export interface Page<Row> {
  rows: Row[];
  next: { cursor: Cursor; results: boolean };
  previous: { cursor: Cursor; results: boolean };
}

export interface KeysetSpec<Row> {
  cursor: string | undefined;
  limit: number;
  /** The sort key of a row as a number (epoch ms for timestamps). */
  keyOf(row: Row): number;
  idOf(row: Row): number;
}

/**
 * Keyset pagination over a descending (key, id) order. Walking `next` from the first page returns
 * every row exactly once, with no empty page in between, even while newer rows are inserted.
 */
export async function keysetPage<Row>(
  fetch: (bound: KeysetBound) => Promise<Row[]>,
  spec: KeysetSpec<Row>,
): Promise<Page<Row>> {
  const cursor = parseCursor(spec.cursor);
  const position = (row: Row, isPrev: boolean): Cursor => ({ value: spec.keyOf(row), id: spec.idOf(row), isPrev });
  const after = cursor ? { value: cursor.value, id: cursor.id } : null;

  if (cursor?.isPrev) {
    const fetched = await fetch({ after, order: "asc", limit: spec.limit + 1 });
    const rows = fetched.slice(0, spec.limit).reverse();
    const first = rows[0];
    const last = rows.at(-1);
    return {
      rows,
      previous: { cursor: first ? position(first, true) : cursor, results: fetched.length > spec.limit },
      next: { cursor: last ? position(last, false) : { ...cursor, isPrev: false }, results: true },
    };
  }

  const fetched = await fetch({ after, order: "desc", limit: spec.limit + 1 });
  const rows = fetched.slice(0, spec.limit);
  const first = rows[0];
  const last = rows.at(-1);
  const origin: Cursor = cursor ?? { value: 0, id: 0, isPrev: false };
  return {
    rows,
    previous: { cursor: first ? position(first, true) : { ...origin, isPrev: true }, results: cursor !== null },
    next: { cursor: last ? position(last, false) : origin, results: fetched.length > spec.limit },
  };
}

/**
 * The WHERE condition of a keyset bound over a key column and an integer id column. The key is a
 * timestamp (the cursor holds epoch ms) unless `keyKind` says it is a plain number (counters).
 */
export function keysetCondition(
  bound: KeysetBound,
  keyColumn: string,
  idColumn: string,
  keyKind: "timestamp" | "number" = "timestamp",
): RawBuilder<boolean> | null {
  if (!bound.after) return null;
  const key = sql.ref(keyColumn);
  const id = sql.ref(idColumn);
  const value = keyKind === "timestamp" ? new Date(bound.after.value) : bound.after.value;
  return bound.order === "desc"
    ? sql<boolean>`(${key}, ${id}) < (${value}, ${bound.after.id})`
    : sql<boolean>`(${key}, ${id}) > (${value}, ${bound.after.id})`;
}

/**
 * The longest URL a list answers: its `Link` header carries it twice, and common HTTP clients
 * (Node's fetch and http, browsers behind proxies) refuse response headers past 16 KiB in all.
 */
export const MAX_LINKED_URL_LENGTH = 6144;

/** `Link` header in Sentry's format: both relations, absolute URLs carrying the original query. 414 past {@link MAX_LINKED_URL_LENGTH}. */
export function linkHeader(url: URL, page: Page<unknown>): string {
  const length = urlLength(url);
  if (length > MAX_LINKED_URL_LENGTH)
    throw uriTooLong(length, MAX_LINKED_URL_LENGTH, " for a paginated list, whose Link header repeats it");
  const link = (rel: string, part: { cursor: Cursor; results: boolean }) => {
    const cursor = formatCursor(part.cursor);
    return `<${withCursor(url, cursor)}>; rel="${rel}"; results="${part.results}"; cursor="${cursor}"`;
  };
  return `${link("previous", page.previous)}, ${link("next", page.next)}`;
}

/**
 * The URL with its `cursor` parameter replaced, every other parameter kept byte for byte.
 * Not `searchParams.set`: that re-encodes the whole query (`(` → `%28`), which can triple a long
 * query, and the `Link` header (two URLs) must stay within what HTTP clients accept (the URL
 * itself is bounded by `limits.urlLength`).
 */
function withCursor(url: URL, cursor: string): string {
  const parameter = `cursor=${encodeURIComponent(cursor)}`;
  const parts = url.search
    .slice(1)
    .split("&")
    .filter((part) => part !== "");
  const isCursor = (part: string) => {
    const key = part.split("=", 1)[0] as string;
    try {
      return decodeURIComponent(key.replaceAll("+", " ")) === "cursor";
    } catch {
      return false;
    }
  };
  const first = parts.findIndex(isCursor);
  const kept = parts.filter((part, index) => index === first || !isCursor(part));
  const query = first === -1 ? [...kept, parameter] : kept.map((part, index) => (index === first ? parameter : part));
  return `${url.origin}${url.pathname}?${query.join("&")}`;
}

/** A JSON list reply with its pagination headers. */
export function pageReply<Row, Out>(url: URL, page: Page<Row>, limit: number, serialize: (row: Row) => Out) {
  return {
    body: page.rows.map(serialize),
    headers: { Link: linkHeader(url, page), "X-Per-Page": String(limit) },
  };
}
