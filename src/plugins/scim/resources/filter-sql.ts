import { type RawBuilder, type SqlBool, sql } from "kysely";
import { findSubAttribute, resolveAttribute } from "./attributes.js";
import { invalidFilter } from "../errors.js";
import type { CompareOperator, Filter, FilterValue } from "./filter.js";
import { toBoolean } from "./input.js";
import type { AttributeDefinition, ResourceSchema } from "./schema-definitions.js";

/** How a resource's attributes are stored: some as columns, the rest inside one jsonb document. */
export interface FilterTarget {
  resource: ResourceSchema;
  /** A column for a canonical path (`userName`, `meta.created`; `groups` as a jsonb array), if it is one. */
  column(path: string): SqlColumn | undefined;
  /** The jsonb document holding every other attribute under its canonical keys. */
  document: RawBuilder<unknown>;
}

export interface SqlColumn {
  kind: "text" | "boolean" | "timestamp" | "jsonb";
  sql: RawBuilder<unknown>;
}

/** A value to compare: an SQL expression of one kind, with the attribute's case rule. */
interface Operand {
  kind: "text" | "boolean" | "timestamp";
  sql: RawBuilder<unknown>;
  caseExact: boolean;
}

type Leaf = Extract<Filter, { attrPath: string }> & { op: CompareOperator | "pr" };

/** Where attribute paths resolve: the resource, or the element a value filter (`emails[...]`) looks at. */
type Scope = { kind: "resource" } | { kind: "element"; parent: AttributeDefinition; json: RawBuilder<unknown> };

const ELEMENT = sql.raw("scim_element.value");

/**
 * Translates a parsed filter to an SQL condition over the stored attributes (RFC 7644 §3.4.2.2).
 * Every leaf is coalesced to true/false so that `not` is two-valued: an absent attribute does not
 * equal anything, so `ne` and `not (… eq …)` match it. Text compares case-insensitively unless the
 * attribute is caseExact, and orders by code point (`COLLATE "C"`) so results do not depend on the
 * database locale. Unknown attributes, and operators an attribute type does not support → invalidFilter.
 */
export function filterToSql(filter: Filter, target: FilterTarget, used: Set<string> = new Set()): RawBuilder<SqlBool> {
  const translate = (node: Filter, scope: Scope): RawBuilder<SqlBool> => {
    switch (node.op) {
      case "and":
        return sql<SqlBool>`(${translate(node.left, scope)} AND ${translate(node.right, scope)})`;
      case "or":
        return sql<SqlBool>`(${translate(node.left, scope)} OR ${translate(node.right, scope)})`;
      case "not":
        return sql<SqlBool>`(NOT ${translate(node.filter, scope)})`;
      case "[]":
        return valuePath(node.attrPath, node.filter);
      default:
        return scope.kind === "element" ? elementLeaf(node, scope) : resourceLeaf(node);
    }
  };

  const jsonAt = (keys: readonly string[]) =>
    keys.reduce<RawBuilder<unknown>>((json, key) => sql`(${json} -> ${sql.lit(key)})`, target.document);

  /** The jsonb array of a multi-valued attribute (empty when absent). */
  const arrayOf = (attribute: AttributeDefinition, keys: readonly string[]) => {
    const column = target.column(attribute.name);
    if (column) used.add(attribute.name);
    const json = column?.sql ?? jsonAt(keys);
    return sql`(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} ELSE '[]'::jsonb END)`;
  };

  const resolve = (path: string) => {
    const resolved = resolveAttribute(target.resource, path);
    if (!resolved) throw invalidFilter(`Unknown attribute ${JSON.stringify(path)} in filter`);
    return resolved;
  };

  function resourceLeaf(node: Leaf): RawBuilder<SqlBool> {
    const resolved = resolve(node.attrPath);
    const { attribute, sub } = resolved;
    const attributeKeys = resolved.sub ? resolved.keys.slice(0, -1) : resolved.keys;
    if (attribute.multiValued) {
      const elements = arrayOf(attribute, attributeKeys);
      if (node.op === "pr" && !sub) return sql<SqlBool>`(jsonb_array_length(${elements}) > 0)`;
      // `emails eq "x"` compares the `value` sub-attribute (RFC 7644 §3.4.2.2).
      const leafAttribute = sub ?? findSubAttribute(attribute, "value");
      if (!leafAttribute) throw invalidFilter(`Name a sub-attribute of "${attribute.name}" to compare`);
      const operand = jsonOperand(leafAttribute, sql`(${ELEMENT} -> ${sql.lit(leafAttribute.name)})`, node.attrPath);
      // Negations read over the whole attribute: `emails.value ne "x"` = no email is "x"; `eq null` = none has a value.
      const present = () => existsElement(elements, leaf({ op: "pr", attrPath: node.attrPath }, operand));
      if (node.op !== "pr" && node.value === null && (node.op === "eq" || node.op === "ne"))
        return node.op === "eq" ? sql<SqlBool>`(NOT ${present()})` : present();
      if (node.op === "ne") return sql<SqlBool>`(NOT ${existsElement(elements, leaf({ ...node, op: "eq" }, operand))})`;
      return existsElement(elements, leaf(node, operand));
    }
    const column = target.column(resolved.path);
    if (column && column.kind !== "jsonb") {
      used.add(resolved.path);
      return leaf(node, { kind: column.kind, sql: column.sql, caseExact: (sub ?? attribute).caseExact });
    }
    if (target.column(attribute.name))
      throw invalidFilter(`Attribute ${JSON.stringify(node.attrPath)} cannot be filtered on`);
    if (attribute.type === "complex" && !sub) {
      const json = jsonAt(resolved.keys);
      if (node.op === "pr")
        return sql<SqlBool>`coalesce(jsonb_typeof(${json}) = 'object' AND ${json} <> '{}'::jsonb, false)`;
      throw invalidFilter(`Name a sub-attribute of "${attribute.name}" to compare`);
    }
    return leaf(node, jsonOperand(sub ?? attribute, jsonAt(resolved.keys), node.attrPath));
  }

  function elementLeaf(node: Leaf, scope: Extract<Scope, { kind: "element" }>): RawBuilder<SqlBool> {
    const sub = node.attrPath.includes(".") ? undefined : findSubAttribute(scope.parent, node.attrPath);
    if (!sub)
      throw invalidFilter(
        `Unknown attribute ${JSON.stringify(node.attrPath)} in the value filter of "${scope.parent.name}"`,
      );
    return leaf(node, jsonOperand(sub, sql`(${scope.json} -> ${sql.lit(sub.name)})`, node.attrPath));
  }

  function valuePath(path: string, inner: Filter): RawBuilder<SqlBool> {
    const resolved = resolve(path);
    if (resolved.sub || resolved.attribute.type !== "complex") {
      throw invalidFilter(`A value filter needs a complex attribute, not ${JSON.stringify(path)}`);
    }
    if (!resolved.attribute.multiValued) {
      return translate(inner, { kind: "element", parent: resolved.attribute, json: jsonAt(resolved.keys) });
    }
    const elements = arrayOf(resolved.attribute, resolved.keys);
    return existsElement(elements, translate(inner, { kind: "element", parent: resolved.attribute, json: ELEMENT }));
  }

  return translate(filter, { kind: "resource" });
}

function existsElement(elements: RawBuilder<unknown>, condition: RawBuilder<SqlBool>): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM jsonb_array_elements(${elements}) AS scim_element(value) WHERE ${condition})`;
}

function jsonOperand(attribute: AttributeDefinition, json: RawBuilder<unknown>, label: string): Operand {
  switch (attribute.type) {
    case "boolean":
      return {
        kind: "boolean",
        sql: sql`(CASE ${json} WHEN 'true'::jsonb THEN true WHEN 'false'::jsonb THEN false END)`,
        caseExact: true,
      };
    case "string":
    case "reference":
    case "binary":
      return {
        kind: "text",
        sql: sql`(CASE WHEN jsonb_typeof(${json}) = 'string' THEN ${json} #>> '{}' END)`,
        caseExact: attribute.caseExact,
      };
    default:
      throw invalidFilter(`Attribute ${JSON.stringify(label)} cannot be filtered on`);
  }
}

function leaf(node: Leaf, operand: Operand): RawBuilder<SqlBool> {
  if (node.op === "pr") {
    return operand.kind === "text"
      ? sql<SqlBool>`coalesce(${operand.sql} <> '', false)`
      : sql<SqlBool>`(${operand.sql} IS NOT NULL)`;
  }
  if (node.value === null) {
    // `eq null` asks for absence (RFC 7644 §3.4.2.2 leaves it open; this is the reading clients mean).
    if (node.op !== "eq" && node.op !== "ne") throw invalidFilter(`"${node.op}" cannot compare with null`);
    const present = leaf({ op: "pr", attrPath: node.attrPath }, operand);
    return node.op === "eq" ? sql<SqlBool>`(NOT ${present})` : present;
  }
  switch (operand.kind) {
    case "boolean":
      return booleanLeaf(node.op, node.value, operand, node.attrPath);
    case "timestamp":
      return timestampLeaf(node.op, node.value, operand, node.attrPath);
    default:
      return textLeaf(node.op, node.value, operand, node.attrPath);
  }
}

function booleanLeaf(
  op: CompareOperator,
  value: Exclude<FilterValue, null>,
  operand: Operand,
  label: string,
): RawBuilder<SqlBool> {
  const bool = toBoolean(value);
  if (bool === undefined) throw invalidFilter(`${JSON.stringify(label)} is a boolean: compare it with true or false`);
  if (op !== "eq" && op !== "ne")
    throw invalidFilter(`"${op}" is not supported on the boolean ${JSON.stringify(label)}`);
  const equal = sql<SqlBool>`coalesce(${operand.sql} = ${bool}, false)`;
  return op === "eq" ? equal : sql<SqlBool>`(NOT ${equal})`;
}

function timestampLeaf(
  op: CompareOperator,
  value: Exclude<FilterValue, null>,
  operand: Operand,
  label: string,
): RawBuilder<SqlBool> {
  if (typeof value !== "string" || Number.isNaN(Date.parse(value))) {
    throw invalidFilter(`${JSON.stringify(label)} is a date-time: compare it with an ISO 8601 string`);
  }
  const at = sql`${new Date(value).toISOString()}::timestamptz`;
  const comparison = { eq: "=", ne: "=", gt: ">", ge: ">=", lt: "<", le: "<=" }[op as string];
  if (!comparison) throw invalidFilter(`"${op}" is not supported on the date-time ${JSON.stringify(label)}`);
  const result = sql<SqlBool>`coalesce(${operand.sql} ${sql.raw(comparison)} ${at}, false)`;
  return op === "ne" ? sql<SqlBool>`(NOT ${result})` : result;
}

function textLeaf(
  op: CompareOperator,
  value: Exclude<FilterValue, null>,
  operand: Operand,
  label: string,
): RawBuilder<SqlBool> {
  if (typeof value === "boolean")
    throw invalidFilter(`${JSON.stringify(label)} is a string: compare it with a quoted value`);
  const text = String(value);
  const x = operand.caseExact ? operand.sql : sql`lower(${operand.sql})`;
  const v = operand.caseExact ? sql`${text}::text` : sql`lower(${text}::text)`;
  switch (op) {
    case "eq":
      return sql<SqlBool>`coalesce(${x} = ${v}, false)`;
    case "ne":
      return sql<SqlBool>`(NOT coalesce(${x} = ${v}, false))`;
    case "co":
      return sql<SqlBool>`coalesce(strpos(${x}, ${v}) > 0, false)`;
    case "sw":
      return sql<SqlBool>`coalesce(starts_with(${x}, ${v}), false)`;
    case "ew":
      return sql<SqlBool>`coalesce(right(${x}, char_length(${v})) = ${v}, false)`;
    default: {
      const comparison = { gt: ">", ge: ">=", lt: "<", le: "<=" }[op];
      return sql<SqlBool>`coalesce(${x} COLLATE "C" ${sql.raw(comparison)} ${v}, false)`;
    }
  }
}
