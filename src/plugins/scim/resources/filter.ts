/**
 * RFC 7644 §3.4.2.2 filter expressions, and the PATCH `path` grammar (§3.5.2) built on them.
 *
 * Our own parser, not `scim2-parse-filter`: that package rejects `true`/`false` in any other letter
 * case (ABNF literals are case-insensitive), mangles `\\` and `\uXXXX` escapes in strings, and turns
 * `emails[type eq "work"].value eq "x"` into two independent conditions that different emails can
 * satisfy. Here that expression means "one email is both".
 */

import { textProblem } from "../../../db/storable-text.js";

export const COMPARE_OPERATORS = ["eq", "ne", "co", "sw", "ew", "gt", "lt", "ge", "le"] as const;
export type CompareOperator = (typeof COMPARE_OPERATORS)[number];
export type FilterValue = string | number | boolean | null;

export type Filter =
  | { op: "and" | "or"; left: Filter; right: Filter }
  | { op: "not"; filter: Filter }
  | { op: CompareOperator; attrPath: string; value: FilterValue }
  | { op: "pr"; attrPath: string }
  /** Some element of the multi-valued (or complex) attribute matches `filter` (paths inside are sub-attributes). */
  | { op: "[]"; attrPath: string; filter: Filter };

/** A PATCH path: `attr`, `attr.sub`, `urn:…:attr`, `attr[filter]` or `attr[filter].sub`. */
export interface PatchPath {
  attrPath: string;
  filter: Filter | null;
  subAttr: string | null;
}

export class FilterSyntaxError extends Error {
  override name = "FilterSyntaxError";
}

type TokenType = "word" | "string" | "number" | "(" | ")" | "[" | "]" | "." | "end";
interface Token {
  type: TokenType;
  text: string;
  position: number;
}

const WORD = /[A-Za-z$_][A-Za-z0-9$_:.-]*/y;
// JSON string syntax, which forbids raw control characters inside the quotes.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![A-Za-z0-9$_:.-])/y;
const WHITESPACE = /[ \t\r\n]+/y;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  const sticky = (pattern: RegExp) => {
    pattern.lastIndex = position;
    return pattern.exec(input)?.[0];
  };
  while (position < input.length) {
    const char = input[position] as string;
    const space = sticky(WHITESPACE);
    if (space) {
      position += space.length;
      continue;
    }
    if ("()[].".includes(char)) {
      tokens.push({ type: char as TokenType, text: char, position });
      position += 1;
      continue;
    }
    const text = char === '"' ? sticky(STRING) : /[-0-9]/.test(char) ? sticky(NUMBER) : sticky(WORD);
    if (!text) {
      throw new FilterSyntaxError(
        char === '"'
          ? `Unterminated or invalid string at position ${position}`
          : `Unexpected character ${JSON.stringify(char)} at position ${position}`,
      );
    }
    tokens.push({ type: char === '"' ? "string" : /[-0-9]/.test(char) ? "number" : "word", text, position });
    position += text.length;
  }
  tokens.push({ type: "end", text: "", position });
  return tokens;
}

const describe = (token: Token) =>
  token.type === "end" ? "the end of the expression" : `${JSON.stringify(token.text)} at position ${token.position}`;

/**
 * Bounds that keep parsing, `filterToSql` and PostgreSQL's own parser off their stack limits
 * (each level recurses in all three). Identity providers send a handful of terms.
 */
export const MAX_FILTER_DEPTH = 32;
export const MAX_FILTER_TERMS = 200;

class Parser {
  #index = 0;
  #depth = 0;
  #terms = 0;
  constructor(private readonly tokens: Token[]) {}

  /** Runs `parse` one nesting level down (the `(`, `not` or `[` at `opening`), refusing to go past the limit. */
  nested<T>(opening: Token, parse: () => T): T {
    if (this.#depth >= MAX_FILTER_DEPTH) {
      throw new FilterSyntaxError(
        `The filter is nested deeper than ${MAX_FILTER_DEPTH} levels (position ${opening.position})`,
      );
    }
    this.#depth += 1;
    try {
      return parse();
    } finally {
      this.#depth -= 1;
    }
  }

  peek(): Token {
    return this.tokens[this.#index] as Token;
  }
  next(): Token {
    const token = this.peek();
    if (token.type !== "end") this.#index += 1;
    return token;
  }
  expect(type: TokenType, what: string): Token {
    const token = this.next();
    if (token.type !== type) throw new FilterSyntaxError(`Expected ${what} but found ${describe(token)}`);
    return token;
  }
  isKeyword(word: string): boolean {
    const token = this.peek();
    return token.type === "word" && token.text.toLowerCase() === word;
  }

  /** filter := and ("or" and)* — `and` binds tighter than `or`, both left-associative. */
  orExpression(inValuePath: boolean): Filter {
    let left = this.andExpression(inValuePath);
    while (this.isKeyword("or")) {
      this.next();
      left = { op: "or", left, right: this.andExpression(inValuePath) };
    }
    return left;
  }
  andExpression(inValuePath: boolean): Filter {
    let left = this.unary(inValuePath);
    while (this.isKeyword("and")) {
      this.next();
      left = { op: "and", left, right: this.unary(inValuePath) };
    }
    return left;
  }
  unary(inValuePath: boolean): Filter {
    if (this.isKeyword("not")) {
      const not = this.next();
      return { op: "not", filter: this.nested(not, () => this.unary(inValuePath)) };
    }
    if (this.peek().type === "(") {
      const open = this.next();
      const inner = this.nested(open, () => this.orExpression(inValuePath));
      this.expect(")", '")"');
      return inner;
    }
    return this.attributeExpression(inValuePath);
  }
  attributeExpression(inValuePath: boolean): Filter {
    const attrPath = this.expect("word", "an attribute name").text;
    if (this.peek().type === "[") {
      if (inValuePath) throw new FilterSyntaxError(`Value filters cannot be nested (position ${this.peek().position})`);
      const open = this.next();
      const filter = this.nested(open, () => this.orExpression(true));
      this.expect("]", '"]"');
      if (this.peek().type !== ".") return { op: "[]", attrPath, filter };
      // `emails[type eq "work"].value eq "x"`: the same element must satisfy both.
      this.next();
      const sub = this.subAttributeName();
      return { op: "[]", attrPath, filter: { op: "and", left: filter, right: this.comparison(sub) } };
    }
    return this.comparison(attrPath);
  }
  /** The name after `].`: one plain sub-attribute name. */
  subAttributeName(): string {
    const token = this.expect("word", "a sub-attribute name");
    if (/[.:]/.test(token.text))
      throw new FilterSyntaxError(`Expected a sub-attribute name but found ${describe(token)}`);
    return token.text;
  }
  comparison(attrPath: string): Filter {
    this.#terms += 1;
    if (this.#terms > MAX_FILTER_TERMS)
      throw new FilterSyntaxError(`The filter has more than ${MAX_FILTER_TERMS} comparisons`);
    const operatorToken = this.expect("word", "an operator (eq, ne, co, sw, ew, gt, lt, ge, le, pr)");
    const operator = operatorToken.text.toLowerCase();
    if (operator === "pr") return { op: "pr", attrPath };
    if (!(COMPARE_OPERATORS as readonly string[]).includes(operator)) {
      throw new FilterSyntaxError(
        `Unknown operator ${JSON.stringify(operatorToken.text)} at position ${operatorToken.position}`,
      );
    }
    return { op: operator as CompareOperator, attrPath, value: this.value() };
  }
  value(): FilterValue {
    const token = this.next();
    if (token.type === "string") {
      // `\u0000` and lone `\ud800` escapes decode to text PostgreSQL refuses: a filter error, not a 500.
      const text = JSON.parse(token.text) as string;
      const problem = textProblem(text);
      if (problem) throw new FilterSyntaxError(`The string at position ${token.position} contains ${problem}`);
      return text;
    }
    if (token.type === "number") return Number(token.text);
    if (token.type === "word") {
      const lowered = token.text.toLowerCase();
      if (lowered === "true") return true;
      if (lowered === "false") return false;
      if (lowered === "null") return null;
    }
    throw new FilterSyntaxError(
      `Expected a value (a quoted string, number, true, false or null) but found ${describe(token)}`,
    );
  }
}

/** Parses a filter expression; throws {@link FilterSyntaxError} naming what is wrong and where. */
export function parseFilter(input: string): Filter {
  const parser = new Parser(tokenize(input));
  if (parser.peek().type === "end") throw new FilterSyntaxError("The filter is empty");
  const filter = parser.orExpression(false);
  const rest = parser.peek();
  if (rest.type !== "end") throw new FilterSyntaxError(`Unexpected ${describe(rest)}`);
  return filter;
}

/** Parses a PATCH path (RFC 7644 §3.5.2: `attrPath / valuePath [subAttr]`). */
export function parsePatchPath(input: string): PatchPath {
  const parser = new Parser(tokenize(input));
  const attrPath = parser.expect("word", "an attribute name").text;
  let filter: Filter | null = null;
  let subAttr: string | null = null;
  if (parser.peek().type === "[") {
    const open = parser.next();
    filter = parser.nested(open, () => parser.orExpression(true));
    parser.expect("]", '"]"');
    if (parser.peek().type === ".") {
      parser.next();
      subAttr = parser.subAttributeName();
    }
  }
  const rest = parser.peek();
  if (rest.type !== "end") throw new FilterSyntaxError(`Unexpected ${describe(rest)}`);
  return { attrPath, filter, subAttr };
}

const PRECEDENCE = { or: 1, and: 2 } as const;

function stringifyValue(value: FilterValue): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** The filter as text that {@link parseFilter} reads back to the same tree. */
export function stringifyFilter(filter: Filter, parentPrecedence = 0, isRightOperand = false): string {
  switch (filter.op) {
    case "and":
    case "or": {
      const precedence = PRECEDENCE[filter.op];
      const text = `${stringifyFilter(filter.left, precedence)} ${filter.op} ${stringifyFilter(filter.right, precedence, true)}`;
      const needsParentheses = precedence < parentPrecedence || (precedence === parentPrecedence && isRightOperand);
      return needsParentheses ? `(${text})` : text;
    }
    case "not":
      return `not (${stringifyFilter(filter.filter)})`;
    case "pr":
      return `${filter.attrPath} pr`;
    case "[]":
      return `${filter.attrPath}[${stringifyFilter(filter.filter)}]`;
    default:
      return `${filter.attrPath} ${filter.op} ${stringifyValue(filter.value)}`;
  }
}

export function stringifyPatchPath(path: PatchPath): string {
  const filter = path.filter ? `[${stringifyFilter(path.filter)}]` : "";
  return `${path.attrPath}${filter}${path.subAttr ? `.${path.subAttr}` : ""}`;
}
