import type { ExceptionView, FrameView, PlatformFamily } from "./event-view.js";
import { frameMatches } from "./match.js";
import {
  formatMatcher,
  type Matcher,
  type MatcherField,
  parseLines,
  parseMatchers,
  readWords,
  RuleSyntaxError,
} from "./syntax.js";

/**
 * Sentry's stack trace rules (docs/grouping.md, "Stack trace rules"): `matchers actions`, where an
 * action marks the matching frames in-app or not (`+app`, `-app`) or in or out of grouping
 * (`+group`, `-group`). Every matching rule applies, in order: a later rule wins over an earlier one.
 */
export type StackTraceAction = "+app" | "-app" | "+group" | "-group";

export interface StackTraceRule {
  matchers: Matcher[];
  actions: StackTraceAction[];
}

const ACTIONS = new Set<string>(["+app", "-app", "+group", "-group"]);

const STACK_TRACE_MATCHERS = new Set<MatcherField>([
  "stack.module",
  "stack.function",
  "stack.abs_path",
  "stack.package",
  "family",
  "app",
  "error.type",
  "error.value",
]);

/** One line of stack trace rules: matchers first, then at least one action. */
export function parseStackTraceRule(line: string): StackTraceRule {
  const words = readWords(line, false);
  const firstAction = words.findIndex((word) => /^[-+^v]|=/.test(word.raw) && !word.raw.includes(":"));
  if (firstAction === -1) throw new RuleSyntaxError("a rule needs an action (+app, -app, +group, -group)");
  const actions = words.slice(firstAction).map((word) => {
    if (word.raw.includes(":")) throw new RuleSyntaxError(`matcher "${word.raw}" after an action: matchers come first`);
    if (!ACTIONS.has(word.raw))
      throw new RuleSyntaxError(`unknown or unsupported action "${word.raw}" (use +app, -app, +group or -group)`);
    return word.raw as StackTraceAction;
  });
  const matcherText = words
    .slice(0, firstAction)
    .map((word) => word.raw)
    .join(" ");
  return { matchers: parseMatchers(matcherText, STACK_TRACE_MATCHERS), actions };
}

/** Every rule of the text, or the bad lines (`line N: why`). */
export function parseStackTraceRules(text: string): { rules: StackTraceRule[]; errors: string[] } {
  return parseLines(text, parseStackTraceRule);
}

/** A rule as canonical text; parsing it gives the rule back. */
export function formatStackTraceRule(rule: StackTraceRule): string {
  return `${rule.matchers.map(formatMatcher).join(" ")} ${rule.actions.join(" ")}`;
}

/** What the rules decide for one frame. */
export interface FrameDecision {
  inApp: boolean;
  /** False when a `-group` rule (not undone by a later `+group`) took the frame out of grouping. */
  inGroup: boolean;
}

/** Applies every matching rule to a frame, in order; `app:` matchers see earlier rules' `±app`. */
export function decideFrame(
  rules: readonly StackTraceRule[],
  frame: FrameView,
  exception: ExceptionView,
  family: PlatformFamily,
): FrameDecision {
  const decision: FrameDecision = { inApp: frame.inApp, inGroup: true };
  for (const rule of rules) {
    if (!frameMatches(rule.matchers, { ...frame, inApp: decision.inApp }, exception, family)) continue;
    for (const action of rule.actions) {
      if (action === "+app" || action === "-app") decision.inApp = action === "+app";
      else decision.inGroup = action === "+group";
    }
  }
  return decision;
}

/** Whether any rule changes in-app (else the payload is left as it is). */
export function changesInApp(rules: readonly StackTraceRule[]): boolean {
  return rules.some((rule) => rule.actions.some((action) => action.endsWith("app")));
}
