import { exceptionChainWithSources } from "../exceptions.js";
import { groupingHashes } from "../fingerprint.js";
import { resolveMessage } from "../message.js";
import { normalizeEvent } from "../normalize.js";
import { parseRawEvent, type RawEvent } from "../raw-event.js";
import type { NormalizedEvent } from "../types.js";
import { changesInApp, decideFrame, type StackTraceRule } from "./enhancements.js";
import {
  type EventView,
  exceptionView,
  familyOf,
  frameView,
  loggerOf,
  type PlatformFamily,
  sdkName,
} from "./event-view.js";
import { type FingerprintRule, firstMatchingRule, formatFingerprintRule, resolveVariables } from "./fingerprinting.js";

/** A project's grouping rules, parsed (docs/grouping.md). */
export interface GroupingRules {
  fingerprinting: readonly FingerprintRule[];
  stackTrace: readonly StackTraceRule[];
}

/**
 * Regroups a normalised event by its project's rules (docs/grouping.md, "Where rules apply"):
 * stack trace rules first (`±app` rewrites the frames' `in_app` in the payload, and title and
 * culprit are derived again; `-group` frames leave the grouping), then the first matching
 * fingerprint rule replaces the fingerprint (the SDK's included) and, with `title=`, the title.
 * The matched rule is kept in the payload's `_fingerprint_info`, as Sentry does. Pure.
 */
export function applyGroupingRules(event: NormalizedEvent, rules: GroupingRules): NormalizedEvent {
  if (rules.fingerprinting.length === 0 && rules.stackTrace.length === 0) return event;
  const family = familyOf(event.platform);
  const flipped = changesInApp(rules.stackTrace) ? withInAppDecisions(event.payload, rules.stackTrace, family) : null;
  // Cannot throw: the payload was accepted as it is, and only `in_app` booleans changed.
  const current = flipped ? normalizeEvent(flipped, { receivedAt: event.received, size: event.size }) : event;
  const raw = parseRawEvent(current.payload);
  const chain = exceptionChainWithSources(raw.exception);
  const views = chain.map(({ source }) => exceptionView(source));
  const exceptions = chain.map(({ exception }, index) => {
    const view = views[index]!;
    const inGroup = view.frames.map((frame) => decideFrame(rules.stackTrace, frame, view, family).inGroup);
    return { ...exception, frames: exception.frames.filter((_, frame) => inGroup[frame]) };
  });
  const message = resolveMessage(raw);
  const eventView: EventView = {
    exceptions: views,
    message: message.formatted,
    logger: loggerOf(current.payload),
    level: current.level,
    tags: new Map(current.tags),
    family,
    sdk: sdkName(current.payload),
    release: current.release,
    transaction: raw.transaction?.trim() || null,
  };
  const rule = firstMatchingRule(rules.fingerprinting, eventView);
  if (!rule) {
    const hashes = groupingHashes({ fingerprint: raw.fingerprint ?? null, exceptions, message, title: current.title });
    return { ...current, hashes };
  }
  const fingerprint = rule.fingerprint.map((part) => resolveVariables(part, eventView));
  return {
    ...current,
    hashes: groupingHashes({ fingerprint, exceptions, message, title: current.title }),
    title: rule.title === null ? current.title : resolveVariables(rule.title, eventView),
    payload: withFingerprintInfo(current.payload, rule, fingerprint, raw),
  };
}

/**
 * The payload with the resolved fingerprint (`{{ default }}` kept: grouping expands it, so the
 * stored event regroups the same) and Sentry's `_fingerprint_info`: the matched rule, and the
 * SDK's fingerprint when the rule replaced a different one.
 */
function withFingerprintInfo(
  payload: Record<string, unknown>,
  rule: FingerprintRule,
  fingerprint: readonly string[],
  raw: RawEvent,
): Record<string, unknown> {
  const client = raw.fingerprint?.map(String) ?? null;
  const replaced = client !== null && JSON.stringify(client) !== JSON.stringify(fingerprint);
  const matchedRule = {
    text: formatFingerprintRule(rule),
    matchers: rule.matchers.map((matcher) => [
      `${matcher.negated ? "!" : ""}${matcher.field === "tags" ? `tags.${matcher.tag}` : matcher.field}`,
      matcher.value,
    ]),
    fingerprint: rule.fingerprint,
    attributes: rule.title === null ? {} : { title: rule.title },
    is_builtin: false,
  };
  return {
    ...payload,
    fingerprint,
    _fingerprint_info: { matched_rule: matchedRule, ...(replaced ? { client_fingerprint: client } : {}) },
  };
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The payload with every frame's `in_app` as the stack trace rules decide, the SDK's value kept in
 * `data.orig_in_app` (Sentry's field; -1 when it sent none); null when no frame changes. Copies
 * only what it changes: the payload may be shared with the caller.
 */
function withInAppDecisions(
  payload: JsonObject,
  rules: readonly StackTraceRule[],
  family: PlatformFamily,
): JsonObject | null {
  const exception = payload.exception;
  const values = Array.isArray(exception) ? exception : isObject(exception) ? exception.values : null;
  if (!Array.isArray(values)) return null;
  let changed = false;
  const newValues = values.map((value: unknown) => {
    const frames = isObject(value) && isObject(value.stacktrace) ? value.stacktrace.frames : null;
    if (!isObject(value) || !Array.isArray(frames)) return value;
    const view = exceptionView({
      type: typeof value.type === "string" ? value.type : undefined,
      value: typeof value.value === "string" ? value.value : undefined,
      mechanism: undefined,
    });
    const newFrames = frames.map((frame: unknown) => {
      if (!isObject(frame)) return frame;
      const decision = decideFrame(rules, frameView(frame), { ...view, frames: [] }, family);
      if (decision.inApp === (frame.in_app === true)) return frame;
      changed = true;
      const data = isObject(frame.data) ? frame.data : {};
      return { ...frame, in_app: decision.inApp, data: { ...data, orig_in_app: frame.in_app ?? -1 } };
    });
    return { ...value, stacktrace: { ...(value.stacktrace as JsonObject), frames: newFrames } };
  });
  if (!changed) return null;
  const newException = Array.isArray(exception) ? newValues : { ...(exception as JsonObject), values: newValues };
  return { ...payload, exception: newException };
}
