import { findExtension, findSubAttribute, resolveAttribute } from "./attributes.js";
import { invalidSyntax, invalidValue } from "../errors.js";
import type { AttributeDefinition, ResourceSchema } from "./schema-definitions.js";

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `"True"`, `"false"`: Entra sends booleans as strings (docs/scim.md, "3. Microsoft Entra ID"). */
export function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const lowered = value.trim().toLowerCase();
    if (lowered === "true") return true;
    if (lowered === "false") return false;
  }
  return undefined;
}

/**
 * `schemas` must name the resource's core schema and nothing we do not know (RFC 7643 §3). Left
 * out entirely, the resource's own is assumed: Entra and Okta send some requests without it, and
 * Sentry accepts them.
 */
export function checkSchemas(resource: ResourceSchema, body: JsonObject): void {
  const schemas = body.schemas;
  if (schemas === undefined) return;
  if (!Array.isArray(schemas) || !schemas.every((schema) => typeof schema === "string")) {
    throw invalidSyntax(`"schemas" must be an array containing "${resource.core.id}"`);
  }
  const known = [resource.core, ...resource.extensions].map((schema) => schema.id.toLowerCase());
  const unknown = schemas.find((schema) => !known.includes(schema.toLowerCase()));
  if (unknown !== undefined)
    throw invalidSyntax(`Unsupported schema ${JSON.stringify(unknown)} for a ${resource.resourceType}`);
  if (!schemas.some((schema) => schema.toLowerCase() === resource.core.id.toLowerCase())) {
    throw invalidSyntax(`"schemas" must contain "${resource.core.id}"`);
  }
}

/** A value checked against its attribute definition, in canonical form (null: leave unassigned). */
export function coerceValue(definition: AttributeDefinition, value: unknown, label: string): unknown {
  if (value === null || value === undefined) return null;
  if (definition.multiValued) {
    const items = Array.isArray(value) ? value : [value];
    return items
      .map((item, index) => coerceSingle(definition, item, `${label}[${index}]`))
      .filter((item) => item !== null);
  }
  return coerceSingle(definition, value, label);
}

function coerceSingle(definition: AttributeDefinition, value: unknown, label: string): unknown {
  if (value === null || value === undefined) return null;
  switch (definition.type) {
    case "complex":
      return coerceComplex(definition, value, label);
    case "boolean": {
      const bool = toBoolean(value);
      if (bool === undefined) throw invalidValue(`Attribute "${label}" must be a boolean`);
      return bool;
    }
    case "decimal":
    case "integer":
      if (typeof value !== "number" || (definition.type === "integer" && !Number.isInteger(value))) {
        throw invalidValue(`Attribute "${label}" must be ${definition.type === "integer" ? "an integer" : "a number"}`);
      }
      return value;
    case "dateTime":
      if (typeof value !== "string" || Number.isNaN(Date.parse(value)))
        throw invalidValue(`Attribute "${label}" must be an ISO 8601 date-time`);
      return value;
    default:
      if (typeof value !== "string") throw invalidValue(`Attribute "${label}" must be a string`);
      return value;
  }
}

function coerceComplex(definition: AttributeDefinition, value: unknown, label: string): JsonObject | null {
  // Entra sends `manager: "id"` where the schema has `manager.value`.
  if (!isObject(value)) {
    const valueAttribute = findSubAttribute(definition, "value");
    if (valueAttribute && !definition.multiValued && !Array.isArray(value))
      return { value: coerceSingle(valueAttribute, value, `${label}.value`) };
    throw invalidValue(`Attribute "${label}" must be an object`);
  }
  const out: JsonObject = {};
  for (const [key, raw] of Object.entries(value)) {
    const sub = findSubAttribute(definition, key);
    if (!sub) throw invalidSyntax(`Unknown attribute "${label}.${key}"`);
    const coerced = coerceValue(sub, raw, `${label}.${sub.name}`);
    if (coerced !== null) out[sub.name] = coerced;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function setAt(target: JsonObject, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const child = node[key];
    node = isObject(child) ? child : (node[key] = {});
  }
  node[keys[keys.length - 1] as string] = value;
}

/**
 * A POST/PUT body (or a patched resource) as a canonical object: attribute names as the schema
 * spells them, values type-checked, `"True"` read as true, dotted and URN-qualified keys folded
 * into their place, null meaning unassigned. Read-only attributes are ignored (RFC 7643 §7) and
 * write-only ones (`password`) dropped; an attribute no schema defines → 400 invalidSyntax.
 */
export function canonicalResource(resource: ResourceSchema, body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "schemas" || value === null || value === undefined) continue;
    const extension = findExtension(resource, key);
    if (extension) {
      if (!isObject(value)) throw invalidValue(`"${extension.id}" must be an object`);
      for (const [name, inner] of Object.entries(value)) assign(resource, out, `${extension.id}:${name}`, inner);
      continue;
    }
    assign(resource, out, key, value);
  }
  return out;
}

function assign(resource: ResourceSchema, out: JsonObject, key: string, value: unknown): void {
  const resolved = resolveAttribute(resource, key);
  if (!resolved) throw invalidSyntax(`Unknown attribute ${JSON.stringify(key)} for a ${resource.resourceType}`);
  const definition = resolved.sub ?? resolved.attribute;
  if (resolved.attribute.mutability === "readOnly" || definition.mutability === "writeOnly") return;
  if (resolved.sub && resolved.attribute.multiValued)
    throw invalidSyntax(`${JSON.stringify(key)} names a sub-attribute of a multi-valued attribute`);
  const coerced = coerceValue(definition, value, resolved.path);
  if (coerced === null) return;
  setAt(out, resolved.keys, coerced);
}
