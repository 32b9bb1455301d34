import { findExtension, resolveAttribute } from "./attributes.js";
import { isObject, type JsonObject } from "./input.js";
import type { ResourceSchema } from "./schema-definitions.js";

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5); names that resolve to nothing are ignored. */
export interface Projection {
  attributes: string[] | null;
  excludedAttributes: string[] | null;
}

export const NO_PROJECTION: Projection = { attributes: null, excludedAttributes: null };

/** Key paths a list of attribute names selects (a whole extension is one key). */
function keyPaths(resource: ResourceSchema, names: readonly string[]): string[][] {
  return names.flatMap((name) => {
    const extension = findExtension(resource, name);
    if (extension) return [[extension.id]];
    const resolved = resolveAttribute(resource, name);
    // `id` and `schemas` are returned always, whatever the client asks.
    return resolved && resolved.attribute.returned !== "always" ? [resolved.keys] : [];
  });
}

/** Whether a top-level attribute will be in the response (so that costly ones are loaded only then). */
export function wantsAttribute(resource: ResourceSchema, projection: Projection, name: string): boolean {
  if (projection.attributes) return keyPaths(resource, projection.attributes).some((keys) => keys[0] === name);
  return !keyPaths(resource, projection.excludedAttributes ?? []).some((keys) => keys.length === 1 && keys[0] === name);
}

function copyPath(source: unknown, target: JsonObject, keys: readonly string[]): void {
  const [key, ...rest] = keys;
  if (key === undefined || !isObject(source) || !(key in source)) return;
  const value = source[key];
  if (rest.length === 0) {
    target[key] = value;
  } else if (Array.isArray(value)) {
    const existing = Array.isArray(target[key]) ? (target[key] as JsonObject[]) : value.map(() => ({}));
    value.forEach((item, index) => copyPath(item, existing[index] as JsonObject, rest));
    target[key] = existing;
  } else if (isObject(value)) {
    const existing = isObject(target[key]) ? (target[key] as JsonObject) : {};
    copyPath(value, existing, rest);
    target[key] = existing;
  }
}

function deletePath(target: unknown, keys: readonly string[]): void {
  const [key, ...rest] = keys;
  if (key === undefined || !isObject(target)) return;
  if (rest.length === 0) {
    delete target[key];
    return;
  }
  const value = target[key];
  for (const item of Array.isArray(value) ? value : [value]) deletePath(item, rest);
}

export function project(resource: ResourceSchema, body: JsonObject, projection: Projection): JsonObject {
  if (projection.attributes) {
    const out: JsonObject = { schemas: body.schemas, id: body.id };
    for (const keys of keyPaths(resource, projection.attributes)) copyPath(body, out, keys);
    return out;
  }
  if (!projection.excludedAttributes) return body;
  const out = structuredClone(body);
  for (const keys of keyPaths(resource, projection.excludedAttributes)) deletePath(out, keys);
  return out;
}
