import { config } from "./config.js";

/** A failed API call, with the `detail` Faultline answered. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

export interface Page<T> {
  data: T;
  next: string | null;
  previous: string | null;
  hits: number | null;
  /** The most `hits` counts (X-Max-Hits): a count at this cap means "at least". */
  maxHits: number | null;
}

/** The cursors of a Sentry-style Link header that say `results="true"`. */
function cursors(link: string | null): { next: string | null; previous: string | null } {
  const found = { next: null as string | null, previous: null as string | null };
  for (const part of (link ?? "").split(/,\s*(?=<)/)) {
    const rel = /rel="(\w+)"/.exec(part)?.[1];
    const cursor = /cursor="([^"]*)"/.exec(part)?.[1];
    if (/results="true"/.test(part) && cursor && (rel === "next" || rel === "previous")) found[rel] = cursor;
  }
  return found;
}

async function detailOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    return typeof body.detail === "string" ? body.detail : JSON.stringify(body);
  } catch {
    return response.statusText || `HTTP ${response.status}`;
  }
}

/**
 * Calls `/api/0{path}` on the same origin with the browser's own credentials (the host's session
 * cookie, read by its `authenticate` hook): the dashboard holds no token.
 */
export async function request<T>(method: string, path: string, body?: unknown): Promise<Page<T>> {
  const response = await fetch(`${config.api}/api/0${path}`, {
    method,
    credentials: "same-origin",
    headers: { accept: "application/json", ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new ApiFailure(response.status, await detailOf(response));
  const text = response.status === 204 ? "" : await response.text();
  const number = (name: string) => {
    const value = response.headers.get(name);
    return value === null ? null : Number(value);
  };
  return {
    data: (text ? JSON.parse(text) : null) as T,
    ...cursors(response.headers.get("link")),
    hits: number("x-hits"),
    maxHits: number("x-max-hits"),
  };
}

export const get = async <T>(path: string): Promise<T> => (await request<T>("GET", path)).data;

/** A query string from parameters; arrays repeat, empty values are dropped. */
export function qs(params: Record<string, string | string[] | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value])
      if (one !== undefined && one !== null && one !== "") search.append(key, one);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export const enc = encodeURIComponent;
