import {
  NoPathInScimPatchOp,
  NoTarget,
  ScimError,
  type ScimPatchOperation,
  type ScimResource,
  scimPatch,
} from "scim-patch";
import { ApiError } from "../../../http/errors.js";
import { type ResolvedAttribute, findExtension, findSubAttribute, isReadOnly, resolveAttribute } from "./attributes.js";
import { MAX_PATCH_OPERATIONS, PATCH_OP_SCHEMA } from "../constants.js";
import { invalidPath, invalidSyntax, invalidValue, mutability, noTarget, scimError } from "../errors.js";
import { type Filter, FilterSyntaxError, parsePatchPath, stringifyFilter, stringifyPatchPath } from "./filter.js";
import { coerceValue, isObject, type JsonObject } from "./input.js";
import type { AttributeDefinition, ResourceSchema } from "./schema-definitions.js";

type Op = "add" | "remove" | "replace";

/** One operation as scim-patch gets it, and the array it needs to exist first (see applyPatch). */
interface Normalised {
  operation: ScimPatchOperation;
  ensureArray: string | null;
}

/** A member of an object by name, any letter case (`Operations`, `operations`; `op`, `Op`). */
function member(object: JsonObject, name: string): unknown {
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : object[key];
}

/** The PatchOp envelope (RFC 7644 §3.5.2): our schema, 1 to 100 operations. */
export function readOperations(body: unknown): JsonObject[] {
  if (!isObject(body)) throw invalidSyntax("A PATCH body must be a PatchOp object");
  const schemas = body.schemas;
  if (
    !Array.isArray(schemas) ||
    !schemas.some((schema) => typeof schema === "string" && schema.toLowerCase() === PATCH_OP_SCHEMA.toLowerCase())
  ) {
    throw invalidSyntax(`"schemas" must contain "${PATCH_OP_SCHEMA}"`);
  }
  const operations = member(body, "Operations");
  if (!Array.isArray(operations) || operations.length === 0)
    throw invalidSyntax('"Operations" must be a non-empty array');
  if (operations.length > MAX_PATCH_OPERATIONS) {
    throw scimError(
      400,
      "tooMany",
      `A PATCH may carry at most ${MAX_PATCH_OPERATIONS} operations (this one has ${operations.length})`,
    );
  }
  return operations.map((operation, index) => {
    if (!isObject(operation)) throw invalidSyntax(`Operations[${index}] must be an object`);
    return operation;
  });
}

/**
 * Rewrites what identity providers send into operations scim-patch applies correctly (the dialects
 * of docs/scim.md, "2. Okta" and "3. Microsoft Entra ID"): `op` in any case; path-less values
 * split into one operation per attribute, so dotted (`name.givenName`) and URN-qualified keys land
 * where they belong; paths resolved case-insensitively and respelled canonically; values
 * type-checked with `"False"` read as false; old Entra's
 * `{op: Remove, path: members, value: [{value}]}` turned into value-filter removals; a null value
 * replaced by a removal.
 */
export function normaliseOperation(
  resource: ResourceSchema,
  current: JsonObject,
  raw: JsonObject,
  index: number,
): Normalised[] {
  const opName = member(raw, "op");
  const op = typeof opName === "string" ? opName.toLowerCase() : "";
  if (op !== "add" && op !== "remove" && op !== "replace") {
    throw invalidSyntax(
      `Operations[${index}].op must be "add", "remove" or "replace", not ${JSON.stringify(opName ?? null)}`,
    );
  }
  const path = member(raw, "path");
  const value = member(raw, "value");
  if (path !== undefined && path !== null && typeof path !== "string")
    throw invalidSyntax(`Operations[${index}].path must be a string`);
  if (typeof path === "string" && path.trim() !== "") return withPath(resource, current, op, path.trim(), value);
  if (op === "remove") throw noTarget(`Operations[${index}]: a "remove" needs a path`);
  if (!isObject(value)) throw invalidValue(`Operations[${index}]: an "${op}" without a path needs an object value`);
  return Object.entries(value)
    .filter(([key]) => key !== "schemas")
    .flatMap(([key, inner]) => withPath(resource, current, op, key, inner));
}

function withPath(
  resource: ResourceSchema,
  current: JsonObject,
  op: Op,
  pathText: string,
  value: unknown,
): Normalised[] {
  const extension = findExtension(resource, pathText);
  if (extension) {
    // scim-patch cannot address a whole extension object; address its attributes one by one.
    if (op === "remove") {
      const stored = current[extension.id];
      return Object.keys(isObject(stored) ? stored : {}).flatMap((key) =>
        withPath(resource, current, op, `${extension.id}:${key}`, undefined),
      );
    }
    if (value === null) return withPath(resource, current, "remove", pathText, undefined);
    if (!isObject(value)) throw invalidValue(`The value for "${extension.id}" must be an object`);
    return Object.entries(value).flatMap(([key, inner]) =>
      withPath(resource, current, op, `${extension.id}:${key}`, inner),
    );
  }

  const target = resolvePath(resource, pathText);
  const { resolved, filter, subAttr } = target;
  const definition = subAttr ?? resolved.sub ?? resolved.attribute;
  // Okta renames a group with `{op: replace, value: {id, displayName}}`: restating the id is no change.
  const restated =
    op !== "remove" &&
    !filter &&
    !resolved.sub &&
    JSON.stringify(value) === JSON.stringify(current[resolved.attribute.name]);
  if (restated && isReadOnly(resolved)) return [];
  if (isReadOnly(resolved) || subAttr?.mutability === "readOnly")
    throw mutability(`"${resolved.path}${subAttr ? `.${subAttr.name}` : ""}" is read-only`);
  if (op === "replace" && definition.mutability === "immutable") throw mutability(`"${pathText}" is immutable`);
  const canonicalPath = stringifyPatchPath({ attrPath: resolved.path, filter, subAttr: subAttr?.name ?? null });
  const ensureArray = filter && !resolved.extension ? resolved.attribute.name : null;
  const operation = (operationOp: Op, operationPath: string, operationValue?: unknown): Normalised => ({
    operation: (operationOp === "remove"
      ? { op: operationOp, path: operationPath }
      : { op: operationOp, path: operationPath, value: operationValue }) as ScimPatchOperation,
    ensureArray,
  });

  if (op === "remove") {
    if (value !== undefined && value !== null && resolved.attribute.multiValued && !filter && !resolved.sub)
      return removeByValues(resolved, value);
    return [operation("remove", canonicalPath)];
  }
  if (value === undefined) throw invalidValue(`"${op}" on ${JSON.stringify(pathText)} needs a value`);
  // null means unassigned (RFC 7643 §2.5): replacing with it removes, adding it adds nothing.
  if (value === null) return op === "replace" ? [operation("remove", canonicalPath)] : [];
  // A value filter without a sub-attribute targets elements: the value is one element.
  const valueDefinition = filter && !subAttr ? { ...resolved.attribute, multiValued: false } : definition;
  const coerced = coerceValue(valueDefinition, value, pathText);
  if (coerced === null) return op === "replace" ? [operation("remove", canonicalPath)] : [];
  return [operation(op, canonicalPath, coerced)];
}

/** Old Entra removes members by value: `{op: Remove, path: members, value: [{value: "42"}]}`. */
function removeByValues(resolved: ResolvedAttribute, value: unknown): Normalised[] {
  return (Array.isArray(value) ? value : [value]).map((item) => {
    const id = isObject(item) ? item.value : item;
    if (typeof id !== "string" && typeof id !== "number")
      throw invalidValue(`Removing from "${resolved.path}" needs values like {"value": "…"}`);
    const filter: Filter = { op: "eq", attrPath: "value", value: String(id) };
    checkFilterText(filter);
    return {
      operation: { op: "remove", path: `${resolved.path}[${stringifyFilter(filter)}]` },
      ensureArray: resolved.attribute.name,
    };
  });
}

function resolvePath(resource: ResourceSchema, pathText: string) {
  let parsed;
  try {
    parsed = parsePatchPath(pathText);
  } catch (error) {
    if (error instanceof FilterSyntaxError)
      throw invalidPath(`Invalid path ${JSON.stringify(pathText)}: ${error.message}`);
    throw error;
  }
  const resolved = resolveAttribute(resource, parsed.attrPath);
  if (!resolved) throw invalidPath(`Unknown attribute path ${JSON.stringify(pathText)}`);
  if (!parsed.filter) return { resolved, filter: null, subAttr: null };
  if (resolved.sub || resolved.attribute.type !== "complex" || !resolved.attribute.multiValued) {
    throw invalidPath(`Value filters apply to multi-valued attributes, not ${JSON.stringify(parsed.attrPath)}`);
  }
  const filter = canonicalFilter(parsed.filter, resolved.attribute, pathText);
  checkFilterText(filter);
  let subAttr: AttributeDefinition | null = null;
  if (parsed.subAttr !== null) {
    subAttr = findSubAttribute(resolved.attribute, parsed.subAttr) ?? null;
    if (!subAttr) throw invalidPath(`Unknown attribute path ${JSON.stringify(pathText)}`);
  }
  return { resolved, filter, subAttr };
}

/** The value filter with sub-attribute names as the schema spells them (scim-patch matches names exactly). */
function canonicalFilter(filter: Filter, parent: AttributeDefinition, pathText: string): Filter {
  switch (filter.op) {
    case "and":
    case "or":
      return {
        ...filter,
        left: canonicalFilter(filter.left, parent, pathText),
        right: canonicalFilter(filter.right, parent, pathText),
      };
    case "not":
      return { ...filter, filter: canonicalFilter(filter.filter, parent, pathText) };
    case "[]":
      throw invalidPath(`Value filters cannot be nested: ${JSON.stringify(pathText)}`);
    default: {
      const sub = filter.attrPath.includes(".") ? undefined : findSubAttribute(parent, filter.attrPath);
      if (!sub)
        throw invalidPath(`Unknown attribute ${JSON.stringify(filter.attrPath)} in ${JSON.stringify(pathText)}`);
      return { ...filter, attrPath: sub.name };
    }
  }
}

/** scim-patch splits paths at their last ":" and re-parses filters with a parser that mangles escapes. */
function checkFilterText(filter: Filter): void {
  const text = stringifyFilter(filter);
  if (text.includes(":") || text.includes("\\"))
    throw invalidPath(`Value filters in PATCH paths cannot contain ":" or "\\" (${text})`);
}

function patchError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof NoTarget || error instanceof NoPathInScimPatchOp) return noTarget(error.message);
  if (error instanceof ScimError) return invalidValue(error.message);
  return invalidValue(`The operations could not be applied: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Applies a PatchOp body to a resource's writable document, all operations or none (this works
 * on a copy; the caller stores the result in one transaction). Returns the patched document.
 */
export function applyPatch(resource: ResourceSchema, current: JsonObject, body: unknown): JsonObject {
  const operations = readOperations(body).flatMap((raw, index) => normaliseOperation(resource, current, raw, index));
  let document = { ...structuredClone(current), meta: {} } as unknown as ScimResource & JsonObject;
  try {
    for (const { operation, ensureArray } of operations) {
      // scim-patch fails on a value filter over an absent attribute; absent and empty mean the same here.
      if (ensureArray && !Array.isArray(document[ensureArray])) document[ensureArray] = [];
      document = scimPatch(document, [operation], { mutateDocument: true, treatMissingAsAdd: true });
    }
  } catch (error) {
    throw patchError(error);
  }
  const { meta: _meta, ...patched } = document;
  return patched;
}
