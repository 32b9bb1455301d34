import {
  type AttributeDefinition,
  COMMON_ATTRIBUTES,
  type ResourceSchema,
  type SchemaDefinition,
} from "./schema-definitions.js";

/** An attribute path (`name.givenName`, `urn:…:enterprise:2.0:User:manager.value`) resolved against a resource's schemas. */
export interface ResolvedAttribute {
  /** The extension it lives in (stored under the extension's URN key), or null for core and common attributes. */
  extension: SchemaDefinition | null;
  attribute: AttributeDefinition;
  sub: AttributeDefinition | null;
  /** Keys from the resource root to the value: `["name", "givenName"]`, `[URN, "manager", "value"]`. */
  keys: string[];
  /** The canonical spelling: names as the schema writes them, whatever case the client used. */
  path: string;
}

/**
 * Sentry's own spellings of our attributes, accepted in bodies, PATCH paths and filters
 * (docs/sentry-compatibility.md, "Sentry's own words beside `svc`").
 */
const ATTRIBUTE_ALIASES: Record<string, string> = { sentryorgrole: "svcorgrole" };

const byName = (attributes: readonly AttributeDefinition[], name: string) => {
  const lowered = ATTRIBUTE_ALIASES[name.toLowerCase()] ?? name.toLowerCase();
  return attributes.find((attribute) => attribute.name.toLowerCase() === lowered);
};

export function findSubAttribute(parent: AttributeDefinition, name: string): AttributeDefinition | undefined {
  return byName(parent.subAttributes ?? [], name);
}

/** The schema a URN names (case-insensitive, RFC 7643 §2.1), among this resource's core and extensions. */
export function findSchema(resource: ResourceSchema, urn: string): SchemaDefinition | undefined {
  const lowered = urn.toLowerCase();
  return [resource.core, ...resource.extensions].find((schema) => schema.id.toLowerCase() === lowered);
}

/** An extension named by a whole path (a PATCH path or a body key that is just the extension URN). */
export function findExtension(resource: ResourceSchema, path: string): SchemaDefinition | undefined {
  const lowered = path.toLowerCase();
  return resource.extensions.find((schema) => schema.id.toLowerCase() === lowered);
}

/**
 * Resolves `[URN ":"] attrName ["." subAttr]`, names compared case-insensitively (RFC 7643 §2.1).
 * Unknown schema, attribute or sub-attribute → null (the caller picks invalidFilter or invalidPath).
 */
export function resolveAttribute(resource: ResourceSchema, raw: string): ResolvedAttribute | null {
  const lowered = raw.toLowerCase();
  let schema: SchemaDefinition | null = null;
  let rest = raw;
  for (const candidate of [resource.core, ...resource.extensions]) {
    if (lowered.startsWith(`${candidate.id.toLowerCase()}:`)) {
      schema = candidate;
      rest = raw.slice(candidate.id.length + 1);
    }
  }
  if (schema === null && lowered.startsWith("urn:")) return null;
  const [name, subName, ...extra] = rest.split(".");
  if (name === undefined || name === "" || extra.length > 0) return null;
  const extension = schema !== null && schema !== resource.core ? schema : null;
  const attribute = extension
    ? byName(extension.attributes, name)
    : (byName(COMMON_ATTRIBUTES, name) ?? byName(resource.core.attributes, name));
  if (!attribute) return null;
  let sub: AttributeDefinition | null = null;
  if (subName !== undefined) {
    sub = findSubAttribute(attribute, subName) ?? null;
    if (!sub) return null;
  }
  const keys = [...(extension ? [extension.id] : []), attribute.name, ...(sub ? [sub.name] : [])];
  const local = sub ? `${attribute.name}.${sub.name}` : attribute.name;
  return { extension, attribute, sub, keys, path: extension ? `${extension.id}:${local}` : local };
}

/** The attribute a comparison targets: the sub-attribute when named, else the attribute itself. */
export function leafOf(resolved: ResolvedAttribute): AttributeDefinition {
  return resolved.sub ?? resolved.attribute;
}

/** Read-only attributes (and `id`, `meta`, `schemas`) may not be written by PATCH (RFC 7644 §3.5.2: mutability). */
export function isReadOnly(resolved: ResolvedAttribute): boolean {
  return resolved.attribute.mutability === "readOnly" || resolved.sub?.mutability === "readOnly";
}
