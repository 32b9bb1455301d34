import type { DependencyContainer } from "tsyringe";
import type { z } from "zod";
import type { Principal } from "../auth/principal.js";
import type { Scope } from "../auth/scopes.js";
import type { Organization } from "../db/schema.js";
import type { Logger } from "../logging/logger.js";
import type { HttpMethod } from "./router.js";

/** The path parameter that makes the pipeline resolve (and authorize) an organization. */
export const ORGANIZATION_PARAM = "organization_id_or_slug";

type HasOrganization<Path extends string> = Path extends `${string}{${typeof ORGANIZATION_PARAM}}${string}`
  ? true
  : false;

/** `{name}` segments of a path template, as a string record. */
type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name | keyof PathParams<Rest>]: string }
  : Record<never, string>;

/**
 * How a route authenticates: `token` (the default) needs a principal; `user` needs a user-bound
 * one; `optional` authenticates credentials when given (a bad token is still a 401) and runs
 * without a principal otherwise (Sentry's `GET /api/0/` probe); `none` skips authentication
 * (ingest with DSN keys, OAuth exchange); `token-or-dsn` is `token`, except that a request
 * carrying Sentry's `Authorization: DSN <dsn>` reaches the handler without a principal (and
 * without its organization authorized): the handler authenticates the DSN key itself (Sentry's
 * user feedback submission).
 */
export type EndpointAuth = "token" | "user" | "optional" | "none" | "token-or-dsn";

/** Sentry's DSN authorization (`Authorization: DSN https://<public key>@host/<project id>`). */
export const DSN_AUTHORIZATION = /^DSN\s+(\S+)\s*$/i;

/** What a handler may return: data rendered as JSON, or a ready Response. */
export interface Reply<T = unknown> {
  status?: number;
  body?: T;
  headers?: HeadersInit;
}

export interface EndpointContext<Path extends string, Params, Query, Body> {
  request: Request;
  /** The full original URL, including the host's mount prefix. */
  url: URL;
  /** The host's mount prefix (`/faultline`), or "" at the root. */
  basePath: string;
  requestId: string;
  /** The sender's IP address as the adapter resolved it (HandlerOptions.clientAddress), or null when unknown. */
  clientAddress: string | null;
  params: unknown extends Params ? PathParams<Path> : Params;
  query: Query;
  body: Body;
  /** The raw request body, for endpoints declared with `rawBody: true`. */
  rawBody: Uint8Array | null;
  principal: HasOrganization<Path> extends true ? Principal : Principal | null;
  /** The organization named in the path, already authorized for this principal. */
  organization: HasOrganization<Path> extends true ? Organization : null;
  /** The principal's effective scopes here (token scopes, limited by role in this organization). */
  scopes: ReadonlySet<Scope>;
  container: DependencyContainer;
  logger: Logger;
}

type Schema = z.ZodType;
type Infer<S> = S extends z.ZodType ? z.output<S> : unknown;

export interface EndpointDefinition<
  Path extends string = string,
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R = unknown,
  // Last, so that every existing spelling of the type keeps meaning the same.
  Id extends string = string,
> {
  method: HttpMethod;
  path: Path;
  /**
   * Stable name used by the in-process API and OpenAPI (`installations.list`). Its literal type
   * is what places the endpoint at `faultline.api.<area>.<operation>` in the types.
   */
  operationId: Id;
  summary?: string;
  auth?: EndpointAuth;
  /** Any one of these suffices (implications apply). Omitted: any authenticated caller. */
  scopes?: readonly Scope[];
  params?: P;
  query?: Q;
  body?: B;
  /** Body limit in bytes for this route (default: the instance's `limits.bodyBytes`). */
  bodyLimit?: number;
  /** Hand the handler the raw bytes instead of parsing JSON (ingest, signatures). */
  rawBody?: boolean;
  handler(
    ctx: EndpointContext<Path, P extends Schema ? Infer<P> : unknown, Infer<Q>, Infer<B>>,
  ): Promise<Reply<R> | Response> | Reply<R> | Response;
}

/** Any endpoint, whatever its schemas: what plugins list and the router stores. */
// The handler's context is contravariant, so the erased form has to accept any context.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEndpoint = EndpointDefinition<string, any, any, any, any, string>;

/** Declares an endpoint; the identity function is there for inference of params, query, body and operation id. */
export function defineEndpoint<
  const Path extends string,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R = unknown,
  const Id extends string = string,
>(definition: EndpointDefinition<Path, P, Q, B, R, Id>): EndpointDefinition<Path, P, Q, B, R, Id> {
  return definition;
}

export function json<T>(body: T, init: Omit<Reply<T>, "body"> = {}): Reply<T> {
  return { ...init, body };
}
