import { searchError } from "./errors.js";

/** A `key:value` token's value as written: bare, `"quoted"`, or a `[a, b]` list. */
export type RawValue =
  { kind: "bare"; text: string } | { kind: "quoted"; text: string } | { kind: "list"; items: string[] };

export type RawToken =
  { kind: "text"; text: string } | { kind: "filter"; negated: boolean; key: string; value: RawValue };

/** `tags[sentry:user]` names a tag whose key would not parse as a bare key. */
const KEY = /^(?:[A-Za-z_][\w.-]*|tags\[[^\]\s]+\])$/;
const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/**
 * Splits a query into tokens separated by whitespace. A quote or bracket opened after `key:`
 * runs to its closing partner (spaces included); everywhere else quotes only delimit a
 * top-level phrase, so `it's` or `a"b` stay plain words.
 */
export function tokenize(input: string): RawToken[] {
  const tokens: RawToken[] = [];
  let i = 0;
  while (i < input.length) {
    if (isSpace(input[i])) {
      i++;
      continue;
    }
    if (input[i] === '"') {
      const { text, end } = readQuoted(input, i);
      i = expectBoundary(input, end, "a quoted phrase");
      if (text.trim() !== "") tokens.push({ kind: "text", text });
      continue;
    }
    const filter = readFilter(input, i);
    if (filter) {
      tokens.push(filter.token);
      i = filter.end;
      continue;
    }
    const start = i;
    while (i < input.length && !isSpace(input[i])) i++;
    tokens.push({ kind: "text", text: input.slice(start, i) });
  }
  return tokens;
}

/** A `[!]key:value` token starting at `start`, or null when the word there is not one. */
function readFilter(input: string, start: number): { token: RawToken; end: number } | null {
  const negated = input[start] === "!";
  const keyStart = negated ? start + 1 : start;
  const colon = keyEnd(input, keyStart);
  if (colon === null) return null;
  const key = input.slice(keyStart, colon);
  if (!KEY.test(key)) {
    // `!:x`, `:x` or `a b:c`-like leftovers are not filters; a colon-free word is plain text.
    if (key === "" || negated) throw searchError(`malformed token "${wordAt(input, start)}"`);
    return null;
  }
  const valueStart = colon + 1;
  const next = input[valueStart];
  // An empty value is left to the parser: `is:` is an error, `TypeError:` is just a word.
  if (next === undefined || isSpace(next))
    return { token: { kind: "filter", negated, key, value: { kind: "bare", text: "" } }, end: valueStart };
  if (next === '"') {
    const { text, end } = readQuoted(input, valueStart);
    return {
      token: { kind: "filter", negated, key, value: { kind: "quoted", text } },
      end: expectBoundary(input, end, `the value of "${key}:"`),
    };
  }
  if (next === "[") {
    const { items, end } = readList(input, valueStart, key);
    return {
      token: { kind: "filter", negated, key, value: { kind: "list", items } },
      end: expectBoundary(input, end, `the list of "${key}:"`),
    };
  }
  let end = valueStart;
  while (end < input.length && !isSpace(input[end])) end++;
  return { token: { kind: "filter", negated, key, value: { kind: "bare", text: input.slice(valueStart, end) } }, end };
}

/** Index of the colon ending a key that starts at `start`, or null when the word has none. */
function keyEnd(input: string, start: number): number | null {
  let i = start;
  if (input.startsWith("tags[", start)) {
    const close = input.indexOf("]", start);
    if (close !== -1) i = close + 1;
  }
  while (i < input.length && !isSpace(input[i]) && input[i] !== '"') {
    if (input[i] === ":") return i;
    i++;
  }
  return null;
}

/** A double-quoted string starting at `start`; `\"` and `\\` are escapes. */
function readQuoted(input: string, start: number): { text: string; end: number } {
  let text = "";
  for (let i = start + 1; i < input.length; i++) {
    const ch = input[i] as string;
    if (ch === "\\" && (input[i + 1] === '"' || input[i + 1] === "\\")) {
      text += input[++i];
    } else if (ch === '"') {
      return { text, end: i + 1 };
    } else {
      text += ch;
    }
  }
  throw searchError(`missing closing quote for the value starting at position ${start + 1}`);
}

/** `[a, "b c", d]`: comma-separated, items trimmed, quotes allowed; empty items are an error. */
function readList(input: string, start: number, key: string): { items: string[]; end: number } {
  const items: string[] = [];
  let i = start + 1;
  for (;;) {
    while (isSpace(input[i])) i++;
    let item: string;
    if (input[i] === '"') {
      const quoted = readQuoted(input, i);
      item = quoted.text;
      i = quoted.end;
    } else {
      const itemStart = i;
      while (i < input.length && input[i] !== "," && input[i] !== "]") i++;
      item = input.slice(itemStart, i).trim();
    }
    while (isSpace(input[i])) i++;
    if (i >= input.length) throw searchError(`missing "]" to close the list of "${key}:"`);
    if (item === "") throw searchError(`empty item in the list of "${key}:"`);
    items.push(item);
    if (input[i] === "]") return { items, end: i + 1 };
    if (input[i] !== ",") throw searchError(`expected "," or "]" in the list of "${key}:"`);
    i++;
  }
}

/** A closing quote or bracket must end the token: `key:"a"b` is ambiguous, so it is an error. */
function expectBoundary(input: string, end: number, what: string): number {
  if (end < input.length && !isSpace(input[end])) throw searchError(`unexpected "${input[end]}" after ${what}`);
  return end;
}

function wordAt(input: string, start: number): string {
  let end = start;
  while (end < input.length && !isSpace(input[end])) end++;
  return input.slice(start, end);
}
