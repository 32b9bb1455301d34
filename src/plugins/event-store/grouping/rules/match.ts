import type { EventView, ExceptionView, FrameView, PlatformFamily } from "./event-view.js";
import { globMatches } from "./glob.js";
import { appValue, isPathField, type Matcher, type MatcherField } from "./syntax.js";

/**
 * How a rule's matchers meet an event (docs/grouping.md, "Matchers"): every matcher must hold.
 * `error.type`/`error.value` matchers must hold on one and the same exception, frame matchers
 * (`stack.*`, `app`) on one and the same frame (of any exception); the others on the event.
 */

const EXCEPTION_FIELDS = new Set<MatcherField>(["error.type", "error.value"]);
const FRAME_FIELDS = new Set<MatcherField>([
  "stack.module",
  "stack.function",
  "stack.abs_path",
  "stack.package",
  "app",
]);

/** A positive matcher against the values it compares; a negated one holds exactly when that fails. */
function holds(matcher: Matcher, values: ReadonlyArray<string | null>): boolean {
  const path = isPathField(matcher.field);
  const found = values.some((value) => value !== null && globMatches(matcher.glob, value, path));
  return found !== matcher.negated;
}

export function frameHolds(matcher: Matcher, frame: FrameView): boolean {
  switch (matcher.field) {
    case "stack.module":
      return holds(matcher, [frame.module]);
    case "stack.function":
      return holds(matcher, [frame.function]);
    case "stack.abs_path":
      return holds(matcher, [frame.absPath, frame.filename]);
    case "stack.package":
      return holds(matcher, [frame.package]);
    case "app":
      return (frame.inApp === appValue(matcher)) !== matcher.negated;
    default:
      return true;
  }
}

function exceptionHolds(matcher: Matcher, exception: ExceptionView): boolean {
  return holds(matcher, [matcher.field === "error.type" ? exception.type : exception.value]);
}

export function familyHolds(matcher: Matcher, family: PlatformFamily): boolean {
  const families = matcher.value.toLowerCase().split(",");
  return (families.includes("all") || families.includes(family)) !== matcher.negated;
}

function eventHolds(matcher: Matcher, event: EventView): boolean {
  switch (matcher.field) {
    // The log message, and the exceptions' values (an error's message, as people read it).
    case "message":
      return holds(matcher, [event.message, ...event.exceptions.map((exception) => exception.value)]);
    case "logger":
      return holds(matcher, [event.logger]);
    case "level":
      return holds(matcher, [event.level]);
    case "tags":
      return holds(matcher, [event.tags.get(matcher.tag ?? "") ?? null]);
    case "family":
      return familyHolds(matcher, event.family);
    case "sdk":
      return holds(matcher, [event.sdk]);
    case "release":
      return holds(matcher, [event.release]);
    default:
      return true;
  }
}

/** Whether every matcher holds on the event, in the grouping described above. */
export function eventMatches(matchers: readonly Matcher[], event: EventView): boolean {
  const exceptionMatchers = matchers.filter((matcher) => EXCEPTION_FIELDS.has(matcher.field));
  const frameMatchers = matchers.filter((matcher) => FRAME_FIELDS.has(matcher.field));
  const eventMatchers = matchers.filter(
    (matcher) => !EXCEPTION_FIELDS.has(matcher.field) && !FRAME_FIELDS.has(matcher.field),
  );
  if (!eventMatchers.every((matcher) => eventHolds(matcher, event))) return false;
  if (
    exceptionMatchers.length > 0 &&
    !event.exceptions.some((exception) => exceptionMatchers.every((matcher) => exceptionHolds(matcher, exception)))
  )
    return false;
  if (frameMatchers.length === 0) return true;
  return event.exceptions.some((exception) =>
    exception.frames.some((frame) => frameMatchers.every((matcher) => frameHolds(matcher, frame))),
  );
}

/** Whether every matcher holds on one frame, of an exception, of an event (stack trace rules). */
export function frameMatches(
  matchers: readonly Matcher[],
  frame: FrameView,
  exception: ExceptionView,
  family: PlatformFamily,
): boolean {
  return matchers.every((matcher) => {
    if (FRAME_FIELDS.has(matcher.field)) return frameHolds(matcher, frame);
    if (EXCEPTION_FIELDS.has(matcher.field)) return exceptionHolds(matcher, exception);
    return matcher.field === "family" ? familyHolds(matcher, family) : true;
  });
}
