import type { InjectionToken } from "tsyringe";
import { z } from "zod";
import type { AnyEndpoint } from "./endpoint.js";

/** Every route of an instance with the plugin that owns it (registered by `buildFaultline`). */
export interface RouteInfo {
  endpoint: AnyEndpoint;
  plugin: string;
  /** The plugin renders this route's errors in its own protocol's shape (SCIM, ingest). */
  protocolErrors: boolean;
}

export const RouteTable: InjectionToken<readonly RouteInfo[]> = Symbol("faultline.RouteTable");

type Json = Record<string, unknown>;

const ERRORS: Record<number, string> = {
  400: "Invalid request: `detail` names the first failing field, `errors` maps every failing field to its messages",
  401: "Authentication credentials were not provided, or are invalid or expired",
  403: "The principal lacks every one of the required scopes (`requiredScopes`), or this endpoint needs a user token",
  404: "Not found, or not visible to this principal (never 403: no existence oracle)",
  413: "Request body too large",
  429: "Rate limited: see `Retry-After`",
};

const errorSchema = {
  type: "object",
  required: ["detail"],
  properties: {
    detail: { type: "string" },
    errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
  },
  additionalProperties: true,
};

function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  return rest;
}

function parameters(endpoint: AnyEndpoint): Json[] {
  const out: Json[] = [];
  const params = endpoint.params ? jsonSchema(endpoint.params) : undefined;
  for (const [, name] of endpoint.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    const schema = (params?.properties as Record<string, Json> | undefined)?.[name as string] ?? { type: "string" };
    out.push({ name, in: "path", required: true, schema });
  }
  const query = endpoint.query ? jsonSchema(endpoint.query) : undefined;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries((query?.properties as Record<string, Json> | undefined) ?? {})) {
    out.push({
      name,
      in: "query",
      required: required.has(name),
      schema,
      ...(schema.type === "array" ? { explode: true } : {}),
    });
  }
  return out;
}

function errorStatuses(endpoint: AnyEndpoint): number[] {
  const statuses = new Set<number>();
  if (endpoint.params || endpoint.query || endpoint.body || endpoint.rawBody) statuses.add(400);
  if (endpoint.auth !== "none") statuses.add(401).add(403);
  if (endpoint.path.includes("{")) statuses.add(404);
  if (endpoint.body || endpoint.rawBody) statuses.add(413);
  if (endpoint.rawBody && endpoint.auth === "none") statuses.add(429);
  return [...statuses].sort();
}

function operation(route: RouteInfo): Json {
  const { endpoint } = route;
  const scopes = endpoint.scopes ?? [];
  const responses: Json = {
    [endpoint.method === "DELETE" ? "2XX" : "200"]: {
      description: "Success",
      content: { "application/json": { schema: {} } },
    },
  };
  for (const status of errorStatuses(endpoint)) {
    responses[String(status)] = route.protocolErrors
      ? {
          description: `${ERRORS[status]} (in this protocol's own error shape)`,
          content: { "application/json": { schema: {} } },
        }
      : { $ref: `#/components/responses/E${status}` };
  }
  const body = endpoint.body
    ? // An empty body is read as {}: it is required only when {} is not a valid one.
      {
        required: !endpoint.body.safeParse({}).success,
        content: { "application/json": { schema: jsonSchema(endpoint.body) } },
      }
    : endpoint.rawBody
      ? {
          required: true,
          content: {
            "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
          },
        }
      : undefined;
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary ?? endpoint.operationId,
    tags: [endpoint.operationId.split(".")[0]],
    // Any one scope suffices: one security requirement per scope.
    // `optional`: anonymous ({}) or with a token.
    security:
      endpoint.auth === "none"
        ? []
        : endpoint.auth === "optional"
          ? [{}, { bearerAuth: [] }]
          : scopes.length > 0
            ? scopes.map((scope) => ({ bearerAuth: [scope] }))
            : [{ bearerAuth: [] }],
    "x-scopes": scopes,
    ...(endpoint.auth === "user" ? { "x-requires-user": true } : {}),
    // Also open to Sentry's `Authorization: DSN <dsn>` (the project's DSN key).
    ...(endpoint.auth === "token-or-dsn" ? { "x-dsn-auth": true } : {}),
    "x-plugin": route.plugin,
    parameters: parameters(endpoint),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of every route, generated from the endpoint definitions (zod schemas
 * through `z.toJSONSchema`, input side). Deterministic: paths and methods sorted. `servers` is a
 * template; a served copy fills in the request's origin and mount prefix.
 */
export function openApiDocument(routes: readonly RouteInfo[], info: { title?: string; version: string }): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const sorted = [...routes].sort(
    (a, b) => a.endpoint.path.localeCompare(b.endpoint.path) || a.endpoint.method.localeCompare(b.endpoint.method),
  );
  for (const route of sorted)
    (paths[route.endpoint.path] ??= {})[route.endpoint.method.toLowerCase()] = operation(route);
  return {
    openapi: "3.1.0",
    info: { title: info.title ?? "Faultline API", version: info.version },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [
      {
        url: "{origin}{basePath}",
        variables: { origin: { default: "http://localhost:3000" }, basePath: { default: "" } },
      },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An API token (`Authorization: Bearer flu_…`) or the host's own session",
        },
      },
      schemas: { Error: errorSchema },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([status, description]) => [
          `E${status}`,
          { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ]),
      ),
    },
  };
}

/** The document as served: `servers` defaults filled with where this request reached Faultline. */
export function servedDocument(document: Json, origin: string, basePath: string): Json {
  return {
    ...document,
    servers: [
      { url: "{origin}{basePath}", variables: { origin: { default: origin }, basePath: { default: basePath } } },
    ],
  };
}
