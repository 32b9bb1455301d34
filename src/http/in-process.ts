import type { z } from "zod";
import type { PrincipalInput } from "../auth/principal.js";
import type { AuthenticateHook } from "../options.js";
import type { AnyEndpoint, EndpointDefinition } from "./endpoint.js";
import { ApiError } from "./errors.js";
import type { FaultlineHandler } from "./pipeline.js";

/**
 * The in-process API: an endpoint called as a function. The call is an ordinary request through
 * `faultline.handler` (same routing, validation, scopes, hooks and error mapping as HTTP), made
 * from a synthetic `Request` whose principal is given explicitly and cannot be forged over HTTP.
 */

/** Who calls: a principal (as an `authenticate` hook would return), or an API token. */
export interface CallOptions {
  principal?: PrincipalInput;
  token?: string;
  /** Extra request headers (`X-Request-Id`, `Accept`…). */
  headers?: HeadersInit;
}

/** What an in-process call sends: path parameters, query and body, by name. */
export interface CallInput {
  params?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
}

export interface CallResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export type CallFunction = (operationId: string, input?: CallInput, options?: CallOptions) => Promise<CallResult>;

// --- types: an endpoint definition's input and output -------------------------------------------

type Schema = z.ZodType;
type PathParamsOf<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name | keyof PathParamsOf<Rest>]: string | number }
  : Record<never, never>;
/** `{ key: T }`, optional when `T` accepts an empty object or nothing. */
type Empty = Record<never, never>;
type Field<K extends string, T> = [T] extends [never]
  ? unknown
  : Empty extends T
    ? { [P in K]?: T }
    : undefined extends T
      ? { [P in K]?: T }
      : { [P in K]: T };
type Simplify<T> = { [K in keyof T]: T[K] };

export type EndpointInput<E> =
  E extends EndpointDefinition<infer Path, infer P, infer Q, infer B, infer _R>
    ? Simplify<
        Field<
          "params",
          P extends Schema ? z.input<P> : keyof PathParamsOf<Path> extends never ? never : PathParamsOf<Path>
        > &
          Field<"query", Q extends Schema ? z.input<Q> : never> &
          Field<"body", B extends Schema ? z.input<B> : E extends { rawBody: true } ? Uint8Array | string : never>
      >
    : CallInput;

/** The reply body an endpoint's handler returns (its JSON, as the HTTP client would parse it). */
export type EndpointOutput<E> =
  E extends EndpointDefinition<string, infer _P, infer _Q, infer _B, infer R> ? R : unknown;

export type EndpointFunction<E> =
  Empty extends EndpointInput<E>
    ? (input?: EndpointInput<E>, options?: CallOptions) => Promise<EndpointOutput<E>>
    : (input: EndpointInput<E>, options?: CallOptions) => Promise<EndpointOutput<E>>;

type AreaOf<Id> = Id extends `${infer Area}.${string}` ? Area : never;
type CamelJoin<S extends string> = S extends `${infer Head}.${infer Tail}`
  ? `${Head}${Capitalize<CamelJoin<Tail>>}`
  : S;
type OperationOf<Id> = Id extends `${string}.${infer Rest}` ? CamelJoin<Rest> : never;

/** `{ "issues.update": typeof updateIssue }` → `{ issues: { update(input, options) } }`; `scim.users.list` → `scim.usersList`. */
export type EndpointApi<Table> = {
  [Area in AreaOf<keyof Table>]: {
    [Id in keyof Table as AreaOf<Id> extends Area ? OperationOf<Id> : never]: EndpointFunction<Table[Id]>;
  };
};

// --- runtime ----------------------------------------------------------------------------------

/** `scim.users.list` → `["scim", "usersList"]`; an id without a dot has no place in `api`. */
export function apiNameOf(operationId: string): [area: string, operation: string] | null {
  const [area, ...rest] = operationId.split(".");
  if (!area || rest.length === 0) return null;
  return [area, rest.map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1))).join("")];
}

function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value])
      if (item !== undefined && item !== null) search.append(key, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function pathOf(endpoint: AnyEndpoint, params: Record<string, string | number> = {}): string {
  return endpoint.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    if (params[name] === undefined)
      throw new ApiError(400, `Invalid request: params.${name}: required`, {
        errors: { [`params.${name}`]: ["required"] },
      });
    return encodeURIComponent(String(params[name]));
  });
}

async function parsed(response: Response): Promise<unknown> {
  if (response.status === 204 || response.body === null) return undefined;
  const text = await response.text();
  return /[/+]json\b/.test(response.headers.get("content-type") ?? "") && text !== "" ? JSON.parse(text) : text;
}

export interface InProcess {
  /** Wraps the host's `authenticate` hook: requests made here carry their principal first. */
  authenticate: AuthenticateHook;
  call: CallFunction;
  /** Adds every endpoint as `api.<area>.<operation>` where the plugins' own API has no such name. */
  extend(api: Record<string, Record<string, unknown>>): void;
}

export function createInProcess(deps: {
  endpoints: () => Iterable<AnyEndpoint>;
  handler: () => FaultlineHandler;
  hostAuthenticate?: AuthenticateHook;
  origin: string;
  basePath: string;
}): InProcess {
  const principals = new WeakMap<Request, PrincipalInput>();
  const byId = new Map<string, AnyEndpoint>();
  for (const endpoint of deps.endpoints()) byId.set(endpoint.operationId, endpoint);

  async function call(operationId: string, input: CallInput = {}, options: CallOptions = {}): Promise<CallResult> {
    const endpoint = byId.get(operationId);
    if (!endpoint) throw new TypeError(`Unknown operation "${operationId}"`);
    const headers = new Headers(options.headers);
    if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
    let body: BodyInit | undefined;
    if (input.body !== undefined) {
      const raw = typeof input.body === "string" || input.body instanceof Uint8Array;
      body = raw ? (input.body as BodyInit) : JSON.stringify(input.body);
      if (!raw && !headers.has("content-type")) headers.set("Content-Type", "application/json");
    }
    const url = `${deps.origin}${deps.basePath}${pathOf(endpoint, input.params)}${queryString(input.query)}`;
    const request = new Request(url, { method: endpoint.method, headers, body });
    if (options.principal) principals.set(request, options.principal);
    const response = await deps.handler()(request, { basePath: deps.basePath });
    const result = { status: response.status, headers: response.headers, body: await parsed(response) };
    if (response.status >= 400) {
      const { detail, ...extra } = (
        typeof result.body === "object" && result.body !== null ? result.body : { detail: result.body }
      ) as Record<string, unknown>;
      throw new ApiError(
        response.status,
        typeof detail === "string" ? detail : `HTTP ${response.status}`,
        extra,
        Object.fromEntries(response.headers),
      );
    }
    return result;
  }

  return {
    authenticate: (request) => principals.get(request) ?? deps.hostAuthenticate?.(request) ?? null,
    call,
    extend(api) {
      for (const operationId of byId.keys()) {
        const name = apiNameOf(operationId);
        if (!name) continue;
        const area = (api[name[0]] ??= {});
        area[name[1]] ??= async (input?: CallInput, options?: CallOptions) =>
          (await call(operationId, input, options)).body;
      }
    },
  };
}
