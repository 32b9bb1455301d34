import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The response shapes of Sentry's published OpenAPI schema, as `@sentry/api` (Sentry's generated
 * client) ships them: the package carries no JSON schema, only the TypeScript types generated
 * from it (`types.gen.d.ts`), so those are read with the TypeScript compiler and turned into a
 * small structural schema — which fields are required and which JSON type each has.
 */
export type Shape =
  | { kind: "string" | "number" | "boolean" | "null" | "unknown" }
  | { kind: "literal"; value: string | number | boolean }
  | { kind: "array"; items: Shape }
  | { kind: "object"; required: Record<string, Shape>; open: boolean }
  | { kind: "union"; options: Shape[] };

// The package exports only an `import` entry (no `require`, no ./package.json): found by path.
const distDir = fileURLToPath(new URL("../../node_modules/@sentry/api/dist/", import.meta.url));
const typesFile = join(distDir, "types.gen.d.ts");
const sdkFile = join(distDir, "sdk.gen.d.ts");

let checker: ts.TypeChecker | undefined;
let aliases: Map<string, ts.TypeAliasDeclaration> | undefined;

/**
 * Reads the declarations (several seconds of synchronous work): call it before opening
 * connections, or kept-alive sockets time out on the server side meanwhile.
 */
export function loadSentrySchema() {
  if (checker && aliases) return { checker, aliases };
  const program = ts.createProgram([typesFile], { noEmit: true, strict: true, skipLibCheck: true });
  checker = program.getTypeChecker();
  aliases = new Map();
  const source = program.getSourceFile(typesFile);
  if (!source) throw new Error(`cannot read ${typesFile}`);
  for (const statement of source.statements)
    if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement);
  return { checker, aliases };
}

function toShape(type: ts.Type, tc: ts.TypeChecker, depth = 0): Shape {
  if (depth > 12) return { kind: "unknown" };
  const flags = type.getFlags();
  if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: "unknown" };
  if (flags & ts.TypeFlags.Null) return { kind: "null" };
  if (type.isStringLiteral()) return { kind: "literal", value: type.value };
  if (type.isNumberLiteral()) return { kind: "literal", value: type.value };
  if (flags & ts.TypeFlags.BooleanLiteral) return { kind: "boolean" };
  if (flags & ts.TypeFlags.StringLike) return { kind: "string" };
  if (flags & ts.TypeFlags.NumberLike) return { kind: "number" };
  if (flags & ts.TypeFlags.BooleanLike) return { kind: "boolean" };
  if (type.isUnion()) {
    const options = type.types
      .filter((t) => !(t.getFlags() & ts.TypeFlags.Undefined))
      .map((t) => toShape(t, tc, depth + 1));
    // `true | false` is how the checker spells boolean.
    const unique = options.filter(
      (option, i) => option.kind !== "boolean" || options.findIndex((o) => o.kind === "boolean") === i,
    );
    return unique.length === 1 ? (unique[0] as Shape) : { kind: "union", options: unique };
  }
  if (tc.isArrayType(type) || tc.isTupleType(type)) {
    const [item] = tc.getTypeArguments(type as ts.TypeReference);
    return { kind: "array", items: item ? toShape(item, tc, depth + 1) : { kind: "unknown" } };
  }
  if (flags & ts.TypeFlags.Object) {
    const required: Record<string, Shape> = {};
    for (const property of type.getProperties()) {
      if (property.getFlags() & ts.SymbolFlags.Optional) continue;
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (!declaration) continue;
      required[property.getName()] = toShape(tc.getTypeOfSymbolAtLocation(property, declaration), tc, depth + 1);
    }
    return { kind: "object", required, open: type.getStringIndexType() !== undefined };
  }
  return { kind: "unknown" };
}

/** The `@sentry/api` function names and the `…Responses` type each one answers with. */
export function sdkResponseTypes(): Map<string, string> {
  const text = readFileSync(sdkFile, "utf8");
  const map = new Map<string, string>();
  for (const match of text.matchAll(/export declare const (\w+): .*?RequestResult<(\w+)Responses/g))
    map.set(match[1] as string, `${match[2]}Responses`);
  return map;
}

/** The schema's shape of an operation's success response (the given status), or undefined when it declares none. */
export function responseShape(operation: string, status: number): Shape | undefined {
  const typeName = sdkResponseTypes().get(operation);
  if (!typeName) throw new Error(`@sentry/api has no operation "${operation}"`);
  const { checker: tc, aliases: all } = loadSentrySchema();
  const alias = all.get(typeName);
  if (!alias) throw new Error(`@sentry/api declares no type ${typeName}`);
  const responses = tc.getTypeAtLocation(alias.name);
  const property = responses.getProperty(String(status));
  if (!property) return undefined;
  const shape = toShape(tc.getTypeOfSymbolAtLocation(property, alias), tc);
  return shape.kind === "unknown" ? undefined : shape;
}

const jsonType = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** Decides whether one violation (`path`, `problem`) is expected; excused ones are not reported. */
export type Excuse = (path: string, problem: string) => boolean;

function matches(value: unknown, shape: Shape, path: string, errors: string[], excuse: Excuse): void {
  const report = (at: string, problem: string) => {
    if (!excuse(at, problem)) errors.push(`${at}: ${problem}`);
  };
  switch (shape.kind) {
    case "unknown":
      return;
    case "literal":
    case "string":
    case "number":
    case "boolean":
    case "null": {
      const want = shape.kind === "literal" ? typeof shape.value : shape.kind;
      if (jsonType(value) !== want) report(path, `expected ${want}, got ${jsonType(value)}`);
      return;
    }
    case "array":
      if (!Array.isArray(value)) return void report(path, `expected array, got ${jsonType(value)}`);
      value.forEach((item, i) => matches(item, shape.items, `${path}[${i}]`, errors, excuse));
      return;
    case "object": {
      if (jsonType(value) !== "object") return void report(path, `expected object, got ${jsonType(value)}`);
      const record = value as Record<string, unknown>;
      for (const [key, child] of Object.entries(shape.required)) {
        if (!(key in record)) report(`${path}.${key}`, "required field missing");
        else matches(record[key], child, `${path}.${key}`, errors, excuse);
      }
      return;
    }
    case "union": {
      const attempts = shape.options.map((option) => {
        const found: string[] = [];
        matches(value, option, path, found, excuse);
        return found;
      });
      if (attempts.some((found) => found.length === 0)) return;
      // Report the option that came closest (the fewest problems).
      errors.push(...(attempts.sort((a, b) => a.length - b.length)[0] ?? []));
      return;
    }
  }
}

/**
 * The ways `value` breaks `shape`: each required field missing, each value of the wrong JSON
 * type, as `path: problem` (`$` is the answer itself). Fields the schema marks optional are not
 * checked; violations `excuse` accepts are not reported (and do not count against a union's option).
 */
export function schemaViolations(value: unknown, shape: Shape, excuse: Excuse = () => false): string[] {
  const errors: string[] = [];
  matches(value, shape, "$", errors, excuse);
  return errors;
}
