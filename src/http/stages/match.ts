// Stage 1 of a request: its route, from the path below the mount prefix.
import type { FaultlinePlugin } from "../../plugin/plugin.js";
import type { AnyEndpoint } from "../endpoint.js";
import { ApiError, NOT_FOUND_DETAIL } from "../errors.js";
import { checkPathParams, checkQuery, checkUrlLength } from "../input-policy.js";
import type { Router } from "../router.js";

export interface MatchedRoute {
  endpoint: AnyEndpoint;
  params: Record<string, string>;
}

/** The endpoint a request is for, or the 404/405 that says why there is none. */
export function matchRoute(
  router: Router<{ endpoint: AnyEndpoint; plugin: FaultlinePlugin }>,
  method: string,
  path: string | null,
  url: URL,
  maxUrlLength: number,
): MatchedRoute {
  if (path === null) throw new ApiError(404, NOT_FOUND_DETAIL);
  checkUrlLength(url, maxUrlLength);
  const match = router.match(method, path);
  if (match.kind === "not-found") throw new ApiError(404, NOT_FOUND_DETAIL);
  if (match.kind === "method-not-allowed")
    throw new ApiError(405, `Method "${method}" not allowed.`, {}, { Allow: match.allow.join(", ") });
  return { endpoint: match.value.endpoint, params: match.params };
}

/** The input policy (input-policy.ts) on the path parameters and the query, before anything reads the database with them. */
export function checkRouteInput(route: MatchedRoute, url: URL): void {
  checkPathParams(route.params);
  checkQuery(url.searchParams);
}

/** The mount prefix without a trailing slash ("" at the root). */
export function trimSlash(basePath: string): string {
  return basePath.endsWith("/") ? basePath.slice(0, -1) : basePath;
}

/** The path below the mount prefix, or null when the request is not under it. */
export function stripBasePath(pathname: string, basePath: string): string | null {
  if (basePath === "") return pathname;
  if (pathname === basePath) return "/";
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null;
}
