import { readFileSync } from "node:fs";

/**
 * The operations of `docs/openapi.json`, read at run time, so that suites which walk "every
 * operation" cover an endpoint as soon as it is added (the document is regenerated from the
 * endpoint definitions and CI checks that it is current).
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minItems?: number;
  pattern?: string;
  default?: unknown;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/0/organizations/{organization_id_or_slug}/`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** Content type and schema of the request body, when the operation takes one. */
  body?: { contentType: string; schema: JsonSchema };
  /** False for operations that authenticate otherwise (DSN key, client credentials) or not at all. */
  bearer: boolean;
  /** Scopes of which any one suffices (`x-scopes`). */
  scopes: string[];
  /** SCIM endpoints answer errors in the SCIM error schema. */
  scim: boolean;
}

interface OpenApiOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  "x-scopes"?: string[];
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

const documentUrl = new URL("../../docs/openapi.json", import.meta.url);

export function loadOperations(): Operation[] {
  const document = JSON.parse(readFileSync(documentUrl, "utf8")) as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== "object" || !operation.operationId) continue;
      const parameters = operation.parameters ?? [];
      const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === "query").map((p) => p.name),
        body: contentType ? { contentType, schema: media?.schema ?? {} } : undefined,
        bearer: (operation.security ?? []).some((requirement) => "bearerAuth" in requirement),
        scopes: operation["x-scopes"] ?? [],
        scim: path.includes("/scim/v2/"),
      });
    }
  }
  return operations;
}

/** The path with each `{param}` replaced by its (percent-encoded) value. */
export function fillPath(
  template: string,
  values: Record<string, string>,
  encode: (value: string) => string = encodeURIComponent,
): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for path parameter {${name}} of ${template}`);
    return encode(value);
  });
}

/** Reads and writes do not change anything; every other method may. */
export const isMutating = (operation: Operation) => !["GET", "HEAD", "OPTIONS"].includes(operation.method);

/**
 * A plausible valid value for a JSON schema: the required properties (or, when none is, the
 * first one: an update that changes one thing), the first enum member, the minimum size.
 * `known` supplies values for property names whose valid values depend on the seeded data (an
 * issue id, client credentials); a property of that name is always included.
 */
function exampleFor(schema: JsonSchema, known: Record<string, unknown> = {}, depth = 0): unknown {
  if (depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length)
    return exampleFor(alternatives.find((s) => s.type !== "null") ?? alternatives[0] ?? {}, known, depth + 1);
  if (schema.allOf?.length)
    return Object.assign({}, ...schema.allOf.map((s) => exampleFor(s, known, depth + 1) as object));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      const required = schema.required ?? properties.slice(0, 1).map(([name]) => name);
      const result: Record<string, unknown> = {};
      for (const [name, property] of properties) {
        // A declared enum is the contract's own list: a seeded value of the same name is for another field.
        const knownHere = name in known && !declaresEnum(property);
        if (knownHere) result[name] = known[name];
        else if (required.includes(name)) result[name] = exampleFor(property, known, depth + 1);
      }
      return result;
    }
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () =>
        exampleFor(schema.items ?? {}, known, depth + 1),
      );
    case "string":
      if (schema.format === "uri") return "https://93.184.215.14/hook";
      if (schema.format === "email") return "someone@example.test";
      if (schema.format === "date-time") return "2026-01-01T00:00:00Z";
      return "x".repeat(Math.max(1, schema.minLength ?? 0));
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 0, schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
    case "boolean":
      return false;
    default:
      return schema.default ?? null;
  }
}

function declaresEnum(schema: JsonSchema): boolean {
  if (schema.enum !== undefined || schema.const !== undefined) return true;
  return (
    (schema.items !== undefined && declaresEnum(schema.items)) ||
    (schema.anyOf ?? schema.oneOf ?? []).some(declaresEnum)
  );
}

const SCIM = "urn:ietf:params:scim";

/**
 * A plausible valid JSON body for the operation: {@link exampleFor} its schema, or, for SCIM
 * resources (free-form in the document: RFC 7644 defines them), a minimal User, Group or PatchOp
 * (a Group's `members` taken from `known`).
 */
export function sampleBody(operation: Operation, known: Record<string, unknown> = {}): unknown {
  if (!operation.body) return undefined;
  if (!operation.scim) return exampleFor(operation.body.schema, known);
  const groups = operation.path.includes("/Groups");
  if (operation.method === "PATCH") {
    const change =
      groups && known.members
        ? { op: "add", path: "members", value: known.members }
        : { op: "replace", path: "displayName", value: "Renamed" };
    return { schemas: [`${SCIM}:api:messages:2.0:PatchOp`], Operations: [change] };
  }
  if (groups)
    return {
      schemas: [`${SCIM}:schemas:core:2.0:Group`],
      displayName: "Sampled group",
      ...(known.members !== undefined && { members: known.members }),
    };
  return { schemas: [`${SCIM}:schemas:core:2.0:User`], userName: "sampled@example.test", displayName: "Sampled user" };
}

/** The schema of SCIM error bodies (RFC 7644 §3.12). */
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
