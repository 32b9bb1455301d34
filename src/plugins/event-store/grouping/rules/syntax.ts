import { ellipsize } from "../text.js";
import { compileGlob } from "./glob.js";

/** How much of a bad line its 400 quotes. */
const QUOTED_LINE_LENGTH = 200;

/**
 * The text syntax shared by fingerprint rules and stack trace rules (docs/grouping.md): one rule a
 * line, `#` comments, `matcher:value …` on the left of `->`. This file reads words and matchers;
 * fingerprint.ts and enhancements.ts read their right-hand sides.
 */

/** What a matcher compares, whatever alias the rule used (`type` and `error.type` are one). */
export type MatcherField =
  | "error.type"
  | "error.value"
  | "message"
  | "logger"
  | "level"
  | "stack.module"
  | "stack.function"
  | "stack.abs_path"
  | "stack.package"
  | "family"
  | "app"
  | "sdk"
  | "release"
  | "tags";

const FIELD_ALIASES: Readonly<Record<string, MatcherField>> = {
  "error.type": "error.type",
  type: "error.type",
  "error.value": "error.value",
  value: "error.value",
  message: "message",
  logger: "logger",
  level: "level",
  "stack.module": "stack.module",
  module: "stack.module",
  "stack.function": "stack.function",
  function: "stack.function",
  "stack.abs_path": "stack.abs_path",
  path: "stack.abs_path",
  "stack.package": "stack.package",
  package: "stack.package",
  family: "family",
  app: "app",
  sdk: "sdk",
  release: "release",
};

/** Matchers compared case-insensitively (Sentry's); paths also treat `\` as `/` and `*` within a segment. */
const CASE_INSENSITIVE = new Set<MatcherField>(["message", "logger", "level", "stack.abs_path", "family"]);
const PATH_FIELDS = new Set<MatcherField>(["stack.abs_path", "stack.package"]);
const FAMILIES = new Set(["native", "javascript", "other", "all"]);
const APP_VALUES: Readonly<Record<string, boolean>> = {
  yes: true,
  true: true,
  "1": true,
  no: false,
  false: false,
  "0": false,
};

/** One `[!]field:value` of a rule, its glob compiled. */
export interface Matcher {
  field: MatcherField;
  /** The tag's key for `tags.<key>`; null otherwise. */
  tag: string | null;
  /** The value as written (quotes and escapes removed). */
  value: string;
  negated: boolean;
  glob: RegExp;
}

/** A word of a rule: its text without quotes, and whether any of it was quoted. */
export interface Word {
  text: string;
  quoted: boolean;
  /** The word as it stood in the line (quotes included). */
  raw: string;
}

/** A rule's text that cannot be read: why, for the 400 (`line N: why`). */
export class RuleSyntaxError extends Error {}

/** Splits a line at its `->`, outside quotes; null when it has none. */
export function splitArrow(line: string): [string, string] | null {
  let quoted = false;
  for (let index = 0; index < line.length - 1; index++) {
    const char = line[index];
    if (char === "\\" && quoted) index++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === "-" && line[index + 1] === ">") return [line.slice(0, index), line.slice(index + 2)];
  }
  return null;
}

/**
 * The line without its comment: `#` at the start or after a space, outside quotes (a `#` inside a
 * value, `message:a#b`, is part of it).
 */
export function stripComment(line: string): string {
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (char === "\\" && quoted) index++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === "#" && (index === 0 || /\s/.test(line[index - 1] as string)))
      return line.slice(0, index);
  }
  return line;
}

/**
 * The words of `text`: separated by whitespace (and commas when `commas`), a `"…"` (with `\"` and
 * `\\` escapes) or a `{{ … }}` variable keeping its spaces inside one word.
 */
export function readWords(text: string, commas: boolean): Word[] {
  const words: Word[] = [];
  let current: Word | null = null;
  const flush = () => {
    if (current) words.push(current);
    current = null;
  };
  for (let index = 0; index < text.length;) {
    const char = text[index] as string;
    if (/\s/.test(char) || (commas && char === ",")) {
      flush();
      index++;
      continue;
    }
    current ??= { text: "", quoted: false, raw: "" };
    const word: Word = current;
    if (char === '"') {
      const end = closingQuote(text, index);
      word.text += text.slice(index + 1, end).replace(/\\(["\\])/g, "$1");
      word.raw += text.slice(index, end + 1);
      word.quoted = true;
      index = end + 1;
    } else if (text.startsWith("{{", index)) {
      const end = text.indexOf("}}", index);
      if (end === -1) throw new RuleSyntaxError(`unclosed variable "${text.slice(index)}"`);
      word.text += text.slice(index, end + 2);
      word.raw += text.slice(index, end + 2);
      index = end + 2;
    } else {
      word.text += char;
      word.raw += char;
      index++;
    }
  }
  flush();
  return words;
}

function closingQuote(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === "\\") index++;
    else if (text[index] === '"') return index;
  }
  throw new RuleSyntaxError(`unclosed quote in ${text.slice(start)}`);
}

/** The matchers left of `->`: at least one, each `[!]field:value`. */
export function parseMatchers(text: string, allowed: ReadonlySet<MatcherField>): Matcher[] {
  const words = readWords(text, false);
  if (words.length === 0) throw new RuleSyntaxError("a rule needs at least one matcher before ->");
  return words.map((word) => parseMatcher(word, allowed));
}

function parseMatcher(word: Word, allowed: ReadonlySet<MatcherField>): Matcher {
  const negated = word.raw.startsWith("!");
  const colon = word.text.indexOf(":");
  const key = word.text.slice(negated ? 1 : 0, colon);
  const rawKey = word.raw.slice(0, word.raw.indexOf(":"));
  if (colon === -1 || key === "" || rawKey.includes('"') || rawKey.includes("{{"))
    throw new RuleSyntaxError(`expected matcher:value, got "${word.raw}"`);
  const value = word.text.slice(colon + 1);
  const tag = key.startsWith("tags.") ? key.slice("tags.".length) : null;
  const field: MatcherField | undefined = tag === null ? FIELD_ALIASES[key] : "tags";
  if (!field || tag === "") throw new RuleSyntaxError(`unknown matcher "${key}"`);
  if (!allowed.has(field)) throw new RuleSyntaxError(`matcher "${key}" cannot be used in these rules`);
  if (value === "") throw new RuleSyntaxError(`matcher "${key}" has an empty value`);
  if (field === "family" && value.split(",").some((family) => !FAMILIES.has(family.toLowerCase())))
    throw new RuleSyntaxError(`family must be native, javascript, other or all (comma-separated), got "${value}"`);
  if (field === "app" && APP_VALUES[value.toLowerCase()] === undefined)
    throw new RuleSyntaxError(`app must be yes or no, got "${value}"`);
  const glob = compileGlob(value, { path: PATH_FIELDS.has(field), ignoreCase: CASE_INSENSITIVE.has(field) });
  return { field, tag, value, negated, glob };
}

/** The in-app state an `app:` matcher asks for. */
export function appValue(matcher: Matcher): boolean {
  return APP_VALUES[matcher.value.toLowerCase()] ?? false;
}

/** Whether the matcher compares paths (`**` globs, `\` as `/`). */
export function isPathField(field: MatcherField): boolean {
  return PATH_FIELDS.has(field);
}

/** A value as written in a rule: bare when that reads back the same, else quoted. */
export function quoteIfNeeded(value: string, unsafe: RegExp): string {
  if (value !== "" && !unsafe.test(value)) return value;
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}

/** A matcher as canonical text (the long field name; quoted when it must be). */
export function formatMatcher(matcher: Matcher): string {
  const key = matcher.field === "tags" ? `tags.${matcher.tag}` : matcher.field;
  return `${matcher.negated ? "!" : ""}${key}:${quoteIfNeeded(matcher.value, /[\s"#\\]|\{\{|->/)}`;
}

/**
 * Reads every rule line of `text` (blank lines and comments skipped) with `parseLine`, collecting
 * each bad line as `line N: why` so that a 400 names them all.
 */
export function parseLines<Rule>(text: string, parseLine: (line: string) => Rule): { rules: Rule[]; errors: string[] } {
  const rules: Rule[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = stripComment(rawLine).trim();
    if (line === "") return;
    try {
      rules.push(parseLine(line));
    } catch (error) {
      if (!(error instanceof RuleSyntaxError)) throw error;
      errors.push(`line ${index + 1}: ${error.message} (in "${ellipsize(rawLine.trim(), QUOTED_LINE_LENGTH)}")`);
    }
  });
  return { rules, errors };
}
