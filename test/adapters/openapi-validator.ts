import { z } from "zod";

/**
 * An OpenAPI 3.1 validator for what Faultline emits, written from the specification
 * (https://spec.openapis.org/oas/v3.1.0): the objects' shapes (unknown members refused except
 * `x-` extensions), path templating matched by required path parameters, unique operation ids,
 * security requirements naming declared schemes, every `$ref` resolving, and every Schema Object
 * a JSON Schema 2020-12 object or boolean with no `$schema` of its own and no dangling `$defs` refs.
 * Returns the problems found (none when valid).
 */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const extensible = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape).superRefine((value, ctx) => {
  for (const key of Object.keys(value)) {
    if (!(key in shape) && !key.startsWith("x-")) ctx.addIssue({ code: "custom", message: `unknown member "${key}"`, path: [key] });
  }
});
const schemaObject = z.union([z.boolean(), z.record(z.string(), z.unknown())]);
const reference = z.strictObject({ $ref: z.string().startsWith("#/"), summary: z.string().optional(), description: z.string().optional() });
const mediaType = extensible({ schema: schemaObject.optional(), example: z.unknown().optional() });
const content = z.record(z.string().regex(/^[\w.+-]+\/[\w.+*-]+$/), mediaType);
const response = z.union([reference, extensible({ description: z.string(), content: content.optional(), headers: z.record(z.string(), z.unknown()).optional() })]);
const parameter = extensible({
  name: z.string().min(1),
  in: z.enum(["query", "header", "path", "cookie"]),
  description: z.string().optional(),
  required: z.boolean().optional(),
  schema: schemaObject,
  style: z.string().optional(),
  explode: z.boolean().optional(),
});
const operation = extensible({
  operationId: z.string().min(1),
  summary: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  parameters: z.array(parameter).optional(),
  requestBody: extensible({ description: z.string().optional(), required: z.boolean().optional(), content }).optional(),
  responses: z.record(z.string().regex(/^([1-5]XX|[1-5]\d\d|default)$/), response).refine((r) => Object.keys(r).length > 0, "no responses"),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  deprecated: z.boolean().optional(),
});
const document = extensible({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: extensible({ title: z.string(), version: z.string(), summary: z.string().optional(), description: z.string().optional() }),
  jsonSchemaDialect: z.url().optional(),
  servers: z.array(extensible({ url: z.string(), description: z.string().optional(), variables: z.record(z.string(), extensible({ default: z.string(), enum: z.array(z.string()).min(1).optional(), description: z.string().optional() })).optional() })).optional(),
  paths: z.record(z.string().startsWith("/"), extensible(Object.fromEntries(METHODS.map((method) => [method, operation.optional()])))),
  components: extensible({
    schemas: z.record(z.string().regex(/^[\w.-]+$/), schemaObject).optional(),
    responses: z.record(z.string().regex(/^[\w.-]+$/), response).optional(),
    securitySchemes: z.record(z.string().regex(/^[\w.-]+$/), extensible({ type: z.enum(["apiKey", "http", "mutualTLS", "oauth2", "openIdConnect"]), scheme: z.string().optional(), description: z.string().optional() })).optional(),
  }).optional(),
});

type Json = Record<string, unknown>;

function resolvePointer(root: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, part) => (node && typeof node === "object" ? (node as Json)[part] : undefined), root);
}

export function openApiProblems(input: unknown): string[] {
  const parsed = document.safeParse(input);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  const doc = input as Json & { paths: Record<string, Record<string, Json>>; components?: { securitySchemes?: Json } };
  const problems: string[] = [];
  const ids = new Set<string>();
  const schemes = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
  for (const [path, item] of Object.entries(doc.paths)) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
    for (const method of METHODS) {
      const op = item[method] as (Json & { operationId: string; parameters?: Json[]; security?: Json[] }) | undefined;
      if (!op) continue;
      if (ids.has(op.operationId)) problems.push(`duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      const pathParams = (op.parameters ?? []).filter((p) => p.in === "path");
      if (JSON.stringify(pathParams.map((p) => p.name).sort()) !== JSON.stringify(templated)) problems.push(`${method} ${path}: path parameters do not match the template`);
      for (const p of pathParams) if (p.required !== true) problems.push(`${method} ${path}: path parameter ${String(p.name)} must be required`);
      const seen = new Set((op.parameters ?? []).map((p) => `${String(p.in)}:${String(p.name)}`));
      if (seen.size !== (op.parameters ?? []).length) problems.push(`${method} ${path}: duplicate parameters`);
      for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) if (!schemes.has(name)) problems.push(`${op.operationId}: unknown security scheme ${name}`);
    }
  }
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${where}/${i}`));
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && resolvePointer(doc, value) === undefined) problems.push(`${where}: $ref ${value} does not resolve`);
      if (key === "$schema" && where.includes("/schema")) problems.push(`${where}: a Schema Object sets its own $schema`);
      walk(value, `${where}/${key}`);
    }
  };
  walk(doc, "#");
  return problems;
}
