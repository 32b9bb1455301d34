import { MAX_RESULTS } from "../constants.js";
import { invalidValue } from "../errors.js";
import type { Projection } from "./projection.js";

export interface ListQuery extends Projection {
  filter: string | null;
  /** 1-based. */
  startIndex: number;
  count: number;
}

const INTEGER = /^[+-]?\d+$/;
const MAX_START_INDEX = 2_000_000_000;

/** Query parameter names compared case-insensitively: IdPs differ in how they spell them. */
function parameters(url: URL): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of url.searchParams) if (!out.has(key.toLowerCase())) out.set(key.toLowerCase(), value);
  return out;
}

function integer(params: Map<string, string>, name: string): number | null {
  const raw = params.get(name.toLowerCase())?.trim();
  if (raw === undefined || raw === "") return null;
  if (!INTEGER.test(raw)) throw invalidValue(`"${name}" must be an integer`);
  return Number(raw);
}

const names = (raw: string | undefined) => {
  const list = (raw ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return list.length > 0 ? list : null;
};

/**
 * RFC 7644 §3.4.2.4: `startIndex` 1-based (below 1 → 1), `count` default and maximum 100
 * (negative → 0). `sortBy`/`sortOrder` are ignored (sorting is not supported; order is by id).
 */
export function parseListQuery(url: URL): ListQuery {
  const params = parameters(url);
  const startIndex = Math.min(Math.max(integer(params, "startIndex") ?? 1, 1), MAX_START_INDEX);
  const count = Math.min(Math.max(integer(params, "count") ?? MAX_RESULTS, 0), MAX_RESULTS);
  const filter = params.get("filter")?.trim() || null;
  return {
    filter,
    startIndex,
    count,
    attributes: names(params.get("attributes")),
    excludedAttributes: names(params.get("excludedattributes")),
  };
}

/** `attributes` / `excludedAttributes` on single-resource requests. */
export function parseProjection(url: URL): Projection {
  const params = parameters(url);
  return { attributes: names(params.get("attributes")), excludedAttributes: names(params.get("excludedattributes")) };
}
