import type { EventView, FrameView } from "./event-view.js";
import { eventMatches } from "./match.js";
import {
  formatMatcher,
  type Matcher,
  type MatcherField,
  parseLines,
  parseMatchers,
  quoteIfNeeded,
  readWords,
  RuleSyntaxError,
  splitArrow,
} from "./syntax.js";

/**
 * Sentry's fingerprint rules (docs/grouping.md, "Fingerprint rules"): `matchers -> fingerprint
 * [title="…"]`. The first rule whose matchers all hold gives the event its fingerprint.
 */
export interface FingerprintRule {
  matchers: Matcher[];
  /** The parts, variables written `{{ name }}`; `{{ default }}` only as a part of its own. */
  fingerprint: string[];
  /** The `title` attribute (variables allowed), or null. */
  title: string | null;
}

const FINGERPRINT_MATCHERS = new Set<MatcherField>([
  "error.type",
  "error.value",
  "message",
  "logger",
  "level",
  "tags",
  "stack.module",
  "stack.function",
  "stack.abs_path",
  "stack.package",
  "family",
  "app",
  "sdk",
  "release",
]);

const VARIABLE = /\{\{\s*([^{}\s]*)\s*\}\}/g;
const DEFAULT_PART = "{{ default }}";

/** The variables a fingerprint may use, by name (aliases included); `tags.<key>` besides. */
const VARIABLES: Readonly<Record<string, (event: EventView) => string>> = {
  transaction: (event) => event.transaction ?? "<no-transaction>",
  "error.type": (event) => mainException(event)?.type ?? "<no-type>",
  type: (event) => mainException(event)?.type ?? "<no-type>",
  "error.value": (event) => mainException(event)?.value ?? "<no-value>",
  value: (event) => mainException(event)?.value ?? "<no-value>",
  function: (event) => crashFrame(event)?.function ?? "<no-function>",
  "stack.function": (event) => crashFrame(event)?.function ?? "<no-function>",
  module: (event) => crashFrame(event)?.module ?? "<no-module>",
  "stack.module": (event) => crashFrame(event)?.module ?? "<no-module>",
  package: (event) => crashFrame(event)?.package ?? "<no-package>",
  "stack.package": (event) => crashFrame(event)?.package ?? "<no-package>",
  level: (event) => event.level,
  logger: (event) => event.logger ?? "<no-logger>",
  message: (event) => event.message ?? mainException(event)?.value ?? "<no-message>",
  release: (event) => event.release ?? "<no-release>",
};

const mainException = (event: EventView) => event.exceptions.at(-1) ?? null;

/** The crashing frame of the main exception: its innermost in-app frame, else its innermost frame. */
function crashFrame(event: EventView): FrameView | null {
  const frames = mainException(event)?.frames ?? [];
  return frames.findLast((frame) => frame.inApp) ?? frames.at(-1) ?? null;
}

/** A value with its variables written `{{ name }}`; unknown variables are a syntax error. */
function canonicalVariables(value: string, where: string): string {
  return value.replace(VARIABLE, (_, name: string) => {
    const known = name === "default" || Object.hasOwn(VARIABLES, name) || /^tags\.[^\s]+$/.test(name);
    if (!known) throw new RuleSyntaxError(`unknown variable "{{ ${name} }}" in ${where}`);
    return `{{ ${name} }}`;
  });
}

/** One line of fingerprint rules. */
export function parseFingerprintRule(line: string): FingerprintRule {
  const sides = splitArrow(line);
  if (!sides) throw new RuleSyntaxError("expected matchers -> fingerprint");
  const matchers = parseMatchers(sides[0], FINGERPRINT_MATCHERS);
  const fingerprint: string[] = [];
  let title: string | null = null;
  for (const word of readWords(sides[1], true)) {
    const attribute = /^(\w+)=/.exec(word.raw);
    if (attribute) {
      if (attribute[1] !== "title") throw new RuleSyntaxError(`unknown attribute "${attribute[1]}" (only title)`);
      title = canonicalVariables(word.text.slice("title=".length), "the title");
      if (title.includes(DEFAULT_PART)) throw new RuleSyntaxError("{{ default }} cannot be used in the title");
      continue;
    }
    if (word.text === "") throw new RuleSyntaxError("a fingerprint part is empty");
    const part = canonicalVariables(word.text, "the fingerprint");
    if (part !== DEFAULT_PART && part.includes(DEFAULT_PART))
      throw new RuleSyntaxError("{{ default }} must be a fingerprint part of its own");
    fingerprint.push(part);
  }
  if (fingerprint.length === 0) throw new RuleSyntaxError("a rule needs a fingerprint after ->");
  return { matchers, fingerprint, title };
}

/** Every rule of the text, or the bad lines (`line N: why`). */
export function parseFingerprintRules(text: string): { rules: FingerprintRule[]; errors: string[] } {
  return parseLines(text, parseFingerprintRule);
}

/** Characters that would not read back as one bare fingerprint part (variables aside). */
const UNSAFE_PART = /[\s,"=#\\{}]|->/;

/** A rule as canonical text: what `matched_rule.text` shows; parsing it gives the rule back. */
export function formatFingerprintRule(rule: FingerprintRule): string {
  const part = (value: string) => (/^\{\{ \S+ \}\}$/.test(value) ? value : quoteIfNeeded(value, UNSAFE_PART));
  const title = rule.title === null ? "" : ` title=${quoteIfNeeded(rule.title, /.?/)}`;
  return `${rule.matchers.map(formatMatcher).join(" ")} -> ${rule.fingerprint.map(part).join(", ")}${title}`;
}

/** The first rule whose matchers all hold on the event, or null. */
export function firstMatchingRule(rules: readonly FingerprintRule[], event: EventView): FingerprintRule | null {
  return rules.find((rule) => eventMatches(rule.matchers, event)) ?? null;
}

/** A value with its variables replaced by the event's values (`{{ default }}` is grouping's to expand). */
export function resolveVariables(value: string, event: EventView): string {
  if (value === DEFAULT_PART) return value;
  return value.replace(VARIABLE, (_, name: string) => {
    if (name.startsWith("tags.")) {
      const key = name.slice("tags.".length);
      return event.tags.get(key) ?? `<no-value-for-tag-${key}>`;
    }
    return VARIABLES[name]?.(event) ?? "";
  });
}
