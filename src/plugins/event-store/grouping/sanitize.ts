import { repairText, textProblem } from "../../../db/storable-text.js";
import { cut } from "./text.js";

/**
 * Repairs an event the way Sentry's Relay does, so that it can always be stored: an SDK that sent
 * something odd loses that odd part, never the event. What was repaired is listed in the event's
 * `errors` (Relay's event processing errors: `{type, name, …}`).
 *
 * - NUL characters and unpaired UTF-16 surrogates, in values and in keys → U+FFFD (PostgreSQL
 *   refuses both in `text` and `jsonb`);
 * - objects and arrays nested deeper than `maxDepth` → the marker `"[Object]"` / `"[Array]"`
 *   (what Sentry's JavaScript SDK writes at its own depth limit); this also keeps
 *   `JSON.stringify` and PostgreSQL's jsonb code within their stacks;
 * - strings longer than `maxStringLength` code points are cut;
 * - values JSON cannot carry (functions, symbols, `undefined`, non-finite numbers, cycles from an
 *   in-process caller) are dropped, `null`ed or marked `"[Circular]"`, as `JSON.stringify` would
 *   (it would throw on a cycle).
 *
 * Iterative: a 10,000-level event cannot overflow the stack here.
 */

export type EventErrorType = "invalid_data" | "value_too_long" | "past_timestamp" | "future_timestamp";

/** One entry of an event's `errors`: what was repaired (`name` is the dotted path of the field). */
export interface EventProcessingError {
  type: EventErrorType;
  name: string;
  /** The value as sent, when it is small enough to be worth keeping (timestamps). */
  value?: unknown;
  reason?: string;
}

export interface SanitizeLimits {
  maxDepth: number;
  maxStringLength: number;
  /** Repairs beyond this many are made but not listed (an event full of NULs gets a bounded list). */
  maxErrors: number;
}

export const EVENT_SANITIZE_LIMITS: SanitizeLimits = { maxDepth: 32, maxStringLength: 16_384, maxErrors: 20 };

export interface Sanitized {
  value: unknown;
  errors: EventProcessingError[];
}

type Container = Record<string, unknown> | unknown[];

/** An object on the path from the root, for cycle detection without recursion. */
interface Ancestor {
  object: object;
  parent: Ancestor | null;
}

interface Task {
  value: unknown;
  /** Where the repaired value goes: `target[key]`. */
  target: Container;
  key: string | number;
  path: readonly string[];
  depth: number;
  ancestors: Ancestor | null;
}

/** The event repaired, with what was repaired; `raw` itself (not a copy) when nothing needs it, which is the usual case. */
export function sanitizeEventPayload(raw: unknown, limits: SanitizeLimits = EVENT_SANITIZE_LIMITS): Sanitized {
  if (!needsRepair(raw, limits)) return { value: raw, errors: [] };
  const errors = new ErrorList(limits.maxErrors);
  const holder: Record<string, unknown> = {};
  const stack: Task[] = [{ value: raw, target: holder, key: "root", path: [], depth: 0, ancestors: null }];
  while (stack.length > 0) {
    const task = stack.pop() as Task;
    const repaired = repairValue(task, limits, errors);
    if (repaired.kind === "drop") {
      if (Array.isArray(task.target)) task.target[task.key as number] = null;
      else delete task.target[task.key];
      continue;
    }
    setAt(task.target, task.key, repaired.value);
    if (repaired.kind === "container") pushChildren(stack, task, repaired.source, repaired.value, errors);
  }
  return { value: holder.root, errors: errors.entries };
}

/**
 * One read-only pass: anything that would be changed below, or that `JSON.stringify` cannot take
 * (a value deeper than the limit, which is also what a cycle is; a bigint; a `toJSON` object,
 * checked the slow way).
 */
function needsRepair(raw: unknown, limits: SanitizeLimits): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: raw, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof value === "string") {
      if (textProblem(value) || (value.length > limits.maxStringLength && cut(value, limits.maxStringLength) !== value))
        return true;
      continue;
    }
    if (typeof value === "bigint") return true;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= limits.maxDepth || typeof (value as { toJSON?: unknown }).toJSON === "function") return true;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (textProblem(key)) return true;
      stack.push({ value: item, depth: depth + 1 });
    }
  }
  return false;
}

type Repaired =
  { kind: "drop" } | { kind: "leaf"; value: unknown } | { kind: "container"; source: object; value: Container };

function repairValue(task: Task, limits: SanitizeLimits, errors: ErrorList): Repaired {
  let value = task.value;
  // Dates and other objects with toJSON (in-process callers) are stored as JSON would store them.
  if (typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  switch (typeof value) {
    case "string":
      return { kind: "leaf", value: repairString(value, task.path, limits, errors) };
    case "number":
      return { kind: "leaf", value: Number.isFinite(value) ? value : null };
    case "boolean":
      return { kind: "leaf", value };
    case "bigint":
      return { kind: "leaf", value: String(value) };
    case "object":
      break;
    default:
      return { kind: "drop" };
  }
  if (value === null) return { kind: "leaf", value: null };
  for (let ancestor = task.ancestors; ancestor; ancestor = ancestor.parent) {
    if (ancestor.object === value) return { kind: "leaf", value: "[Circular]" };
  }
  if (task.depth >= limits.maxDepth) {
    errors.add({
      type: "invalid_data",
      name: pathName(task.path),
      reason: `nested deeper than ${limits.maxDepth} levels`,
    });
    return { kind: "leaf", value: Array.isArray(value) ? "[Array]" : "[Object]" };
  }
  return { kind: "container", source: value, value: Array.isArray(value) ? new Array<unknown>(value.length) : {} };
}

function repairString(text: string, path: readonly string[], limits: SanitizeLimits, errors: ErrorList): string {
  let result = text;
  const problem = textProblem(result);
  if (problem) {
    result = repairText(result);
    errors.add({ type: "invalid_data", name: pathName(path), reason: `contained ${problem} (replaced by U+FFFD)` });
  }
  if (result.length > limits.maxStringLength) {
    const shortened = cut(result, limits.maxStringLength);
    if (shortened !== result)
      errors.add({
        type: "value_too_long",
        name: pathName(path),
        reason: `longer than ${limits.maxStringLength} characters`,
      });
    result = shortened;
  }
  return result;
}

function pushChildren(stack: Task[], task: Task, source: object, target: Container, errors: ErrorList): void {
  const ancestors: Ancestor = { object: source, parent: task.ancestors };
  const depth = task.depth + 1;
  const children: Array<[string | number, string, unknown]> = [];
  if (Array.isArray(source)) {
    source.forEach((item, index) => children.push([index, String(index), item]));
  } else {
    for (const [key, item] of Object.entries(source)) {
      const problem = textProblem(key);
      const safeKey = problem ? repairText(key) : key;
      if (problem)
        errors.add({
          type: "invalid_data",
          name: pathName([...task.path, safeKey]),
          reason: `key contained ${problem} (replaced by U+FFFD)`,
        });
      // Reserve the key now so the copy keeps the sender's key order.
      setAt(target, safeKey, null);
      children.push([safeKey, safeKey, item]);
    }
  }
  // Reversed, so the stack handles fields in document order (errors are listed in that order).
  for (let i = children.length - 1; i >= 0; i--) {
    const [key, segment, value] = children[i] as [string | number, string, unknown];
    stack.push({ value, target, key, path: [...task.path, segment], depth, ancestors });
  }
}

/** Defines rather than assigns: a `"__proto__"` key from JSON is data, not the prototype setter. */
function setAt(target: Container, key: string | number, value: unknown): void {
  if (Array.isArray(target)) target[key as number] = value;
  else Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Dotted path as Relay names fields (`exception.values.0.value`); long paths keep their ends. */
function pathName(path: readonly string[]): string {
  const shown = path.length > 12 ? [...path.slice(0, 11), "…", path.at(-1) as string] : path;
  return shown.map((segment) => cut(segment, 64)).join(".") || "event";
}

class ErrorList {
  readonly entries: EventProcessingError[] = [];
  readonly #seen = new Set<string>();

  constructor(private readonly max: number) {}

  add(error: EventProcessingError): void {
    const key = `${error.type}\u0001${error.name}`;
    if (this.entries.length >= this.max || this.#seen.has(key)) return;
    this.#seen.add(key);
    this.entries.push(error);
  }
}
