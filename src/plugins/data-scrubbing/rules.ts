// The matching half of data scrubbing (docs/data-scrubbing.md): which keys and values are
// sensitive. Pure functions over strings, no I/O.

/** What Sentry puts in place of a scrubbed value. */
export const FILTERED = "[Filtered]";

/** Sentry's rule ids, as its `_meta` remarks name them. */
export const RULE = {
  password: "@password:filter",
  sensitiveFields: "strip-fields",
  creditCard: "@creditcard:filter",
  pemKey: "@pemkey:filter",
  urlAuth: "@urlauth:legacy",
  usSsn: "@usssn:filter",
  removeIp: "@anything:remove",
} as const;

/**
 * Sentry's default sensitive words (its `@password:filter`): a key containing one has its value
 * scrubbed, and so does a string value containing one (Sentry scrubs both, in case structured
 * data arrives as one string, such as JSON or a query string). Written factored (password,
 * passwd, privatekey, private_key, secret, api_key, apikey, auth, credentials, mysql_pwd, token,
 * bearer): the regex engine then rejects most strings at their first characters, 2–4× faster.
 */
const SENTRY_WORDS = /p(?:ass(?:word|wd)|rivate_?key)|secret|api_?key|auth|credentials|mysql_pwd|token|bearer/i;
/**
 * Keys Faultline adds to Sentry's list: cookies and session ids are credentials too. Keys only —
 * a message saying "session expired" stays readable.
 */
const EXTRA_KEY_WORDS = /cookie|session/i;

/**
 * A Luhn-checked card number: 13 to 19 digits, grouped by spaces or dashes, not inside a longer
 * word or number. Card numbers start with 2 to 6 (the card networks' ranges), which keeps
 * millisecond timestamps (13 digits starting with 1) out.
 */
const CARD_CANDIDATE = /(?<![\w.-])[2-6](?:[ -]?\d){12,18}(?![\w-]|\.\d)/g;
const PEM_KEY = /(-----BEGIN[A-Z ]*PRIVATE KEY-----)[\s\S]+?(-----END[A-Z ]*PRIVATE KEY-----)/g;
/** Sentry's `URL_PASSWORD_RE`: the password of `scheme://user:password@host`. */
const URL_AUTH = /\b((?:[a-z0-9]+:)?\/\/[a-zA-Z0-9%_.-]+:)([a-zA-Z0-9%_.-]+)@/g;
/** US social security numbers in Relay's pattern (no 000, 666 or 9xx area, no 00 group, no 0000 serial). */
const US_SSN = /\b(?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g;
/** Cheap prefilter: a value without one of these cannot hold any pattern above (most strings have none). */
const MAY_HOLD_PATTERN = /\d{4}[ -]?\d{4}|\d{3}-\d{2}-|-----BEGIN|:\/\/[^\s/@]+:[^\s/@]*@/;

/** Settings compiled for matching: lower-cased field lists. */
export interface CompiledRules {
  defaults: boolean;
  sensitive: readonly string[];
  safe: ReadonlySet<string>;
}

/** Keys repeat from event to event (`filename`, `lineno`, header names…): each is matched once per settings. */
const MAX_REMEMBERED_KEYS = 4096;
const keyRuleMemo = new WeakMap<CompiledRules, Map<string, string | null>>();

/** The rule that makes a key's value sensitive, or null. */
export function sensitiveKeyRule(key: string, rules: CompiledRules): string | null {
  let memo = keyRuleMemo.get(rules);
  if (!memo) keyRuleMemo.set(rules, (memo = new Map()));
  const known = memo.get(key);
  if (known !== undefined) return known;
  const rule = matchKey(key, rules);
  if (memo.size >= MAX_REMEMBERED_KEYS) memo.clear();
  memo.set(key, rule);
  return rule;
}

function matchKey(key: string, rules: CompiledRules): string | null {
  if (rules.defaults && (SENTRY_WORDS.test(key) || EXTRA_KEY_WORDS.test(key))) return RULE.password;
  if (rules.sensitive.length > 0 && containsAny(key.toLowerCase(), rules.sensitive)) return RULE.sensitiveFields;
  return null;
}

/** The rule that makes a whole string value sensitive (it names a secret), or null. */
export function sensitiveValueRule(value: string, rules: CompiledRules): string | null {
  if (rules.defaults && SENTRY_WORDS.test(value)) return RULE.password;
  if (rules.sensitive.length > 0 && containsAny(value.toLowerCase(), rules.sensitive)) return RULE.sensitiveFields;
  return null;
}

/** One replaced part of a string: where `[Filtered]` now is in the result, and by which rule. */
export interface Substitution {
  rule: string;
  start: number;
  end: number;
}

/**
 * The string with card numbers (Luhn-valid only), private keys, URL passwords and US SSNs
 * replaced by `[Filtered]`, and where; null when nothing matched.
 */
export function substitutePatterns(value: string): { text: string; substitutions: Substitution[] } | null {
  if (!MAY_HOLD_PATTERN.test(value)) return null;
  const found: Array<{ rule: string; start: number; end: number; keep: [string, string] }> = [];
  for (const match of value.matchAll(CARD_CANDIDATE))
    if (luhnValid(match[0].replace(/[ -]/g, "")))
      found.push({ rule: RULE.creditCard, start: match.index, end: match.index + match[0].length, keep: ["", ""] });
  for (const match of value.matchAll(PEM_KEY))
    found.push({
      rule: RULE.pemKey,
      start: match.index,
      end: match.index + match[0].length,
      keep: [match[1]!, match[2]!],
    });
  for (const match of value.matchAll(URL_AUTH))
    found.push({ rule: RULE.urlAuth, start: match.index, end: match.index + match[0].length, keep: [match[1]!, "@"] });
  for (const match of value.matchAll(US_SSN))
    found.push({ rule: RULE.usSsn, start: match.index, end: match.index + match[0].length, keep: ["", ""] });
  if (found.length === 0) return null;
  return rebuild(value, found);
}

function rebuild(
  value: string,
  found: Array<{ rule: string; start: number; end: number; keep: [string, string] }>,
): { text: string; substitutions: Substitution[] } {
  found.sort((a, b) => a.start - b.start);
  let text = "";
  let from = 0;
  const substitutions: Substitution[] = [];
  for (const part of found) {
    if (part.start < from) continue; // overlapping matches: the first one already replaced this
    text += value.slice(from, part.start) + part.keep[0];
    substitutions.push({ rule: part.rule, start: text.length, end: text.length + FILTERED.length });
    text += FILTERED + part.keep[1];
    from = part.end;
  }
  return { text: text + value.slice(from), substitutions };
}

/** A JSON number that is a card number (13 to 19 digits, Luhn-valid), as some clients send one. */
export function isCardNumber(value: number): boolean {
  if (!Number.isSafeInteger(value) || value < 2e12 || value >= 7e18) return false;
  const digits = String(value);
  return /^[2-6]\d{12,18}$/.test(digits) && luhnValid(digits);
}

/** The Luhn checksum card numbers carry: a random digit run passes one time in ten. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

function containsAny(text: string, words: readonly string[]): boolean {
  for (const word of words) if (text.includes(word)) return true;
  return false;
}
