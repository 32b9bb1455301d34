/** Sentry's fingerprint rules and stack trace rules (docs/grouping.md): parsing, formatting, applying. */
export { applyGroupingRules, type GroupingRules } from "./apply.js";
export {
  formatFingerprintRule,
  parseFingerprintRule,
  parseFingerprintRules,
  type FingerprintRule,
} from "./fingerprinting.js";
export {
  formatStackTraceRule,
  parseStackTraceRule,
  parseStackTraceRules,
  type StackTraceAction,
  type StackTraceRule,
} from "./enhancements.js";
export { RuleSyntaxError } from "./syntax.js";
