import { createHash } from "node:crypto";
import type { ExceptionInfo, StackFrame } from "./exceptions.js";
import type { EventMessage } from "./message.js";

/** What grouping reads from a normalised event. */
export interface GroupingInput {
  /** The event's `fingerprint`, numbers as text; null or empty for the default grouping. */
  fingerprint: ReadonlyArray<string | number> | null;
  /** The exception chain, cause first, main exception last. */
  exceptions: readonly ExceptionInfo[];
  message: EventMessage;
  /** The event title: what an event with nothing else to group by is grouped by. */
  title: string;
}

/** `{{ default }}` in a custom fingerprint stands for the default grouping (any spacing or case). */
const DEFAULT_PLACEHOLDER = /^\{\{\s*default\s*\}\}$/i;

/**
 * The grouping hashes of an event (docs/issues.md, "From event to issue"), primary first: MD5 hex
 * of its grouping components. A custom fingerprint replaces the default grouping, so its hash is
 * the only one: ingestion matches an issue by *any* recorded hash, so adding the default hash here
 * would pull events whose fingerprint is meant to split them (e.g. `["{{ default }}", url]`) back
 * together.
 */
export function groupingHashes(input: GroupingInput): string[] {
  return [hashComponents(groupingComponents(input))];
}

/**
 * The values an event is grouped by. Each is tagged with what it is (`type:`, `frame:`, …) so
 * that different kinds of values can never produce the same list. A custom fingerprint's own
 * values are tagged `fingerprint:`, so `["{{ default }}"]` alone groups exactly like the default.
 */
export function groupingComponents(input: GroupingInput): string[] {
  const fingerprint = input.fingerprint ?? [];
  if (fingerprint.length === 0) return defaultComponents(input);
  return fingerprint.flatMap((part) => {
    const value = String(part);
    return DEFAULT_PLACEHOLDER.test(value.trim()) ? defaultComponents(input) : [`fingerprint:${value}`];
  });
}

/** Sentry's default grouping, simplified: stack traces, else exception values, else the message. */
export function defaultComponents({ exceptions, message, title }: GroupingInput): string[] {
  if (exceptions.length > 0) return exceptionComponents(exceptions);
  const text = message.template ?? message.formatted;
  if (text !== null) return [`message:${text}`];
  return [`fallback:${title}`];
}

/**
 * Every exception of the chain contributes its type and its stack (only in-app frames when the
 * event has any, so library internals and their versions do not split issues). The value is
 * left out when there are frames: it often holds ids or counts that vary per occurrence. An
 * exception without frames has nothing better than its value to tell it apart.
 */
function exceptionComponents(exceptions: readonly ExceptionInfo[]): string[] {
  const inAppOnly = exceptions.some((exception) => exception.frames.some((frame) => frame.inApp));
  return exceptions.flatMap((exception) => {
    const type = `type:${exception.type ?? ""}`;
    if (exception.frames.length === 0) return [type, `value:${exception.value ?? ""}`];
    const frames = inAppOnly ? exception.frames.filter((frame) => frame.inApp) : exception.frames;
    return [type, ...frames.map(frameComponent).filter((component) => component !== null)];
  });
}

/** A frame groups by where the code lives and its function, never by line: edits move lines. */
function frameComponent(frame: StackFrame): string | null {
  const location = frame.module ?? (frame.filename === null ? null : normalizeFilename(frame.filename));
  if (!location && !frame.function) return null;
  return `frame:${location ?? ""}|${frame.function ?? ""}`;
}

/**
 * A filename as it identifies code across deploys: without cache-busting query strings or
 * hashes, without `:line:column` suffixes, and for URLs without scheme and host, so the same
 * script served from a CDN or another domain groups together.
 */
export function normalizeFilename(filename: string): string {
  let name = filename.trim().replace(/[?#].*$/s, "");
  name = name.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  name = name.replace(/(:\d+){1,2}$/, "");
  return name;
}

/** MD5 hex of the components; JSON keeps the list unambiguous whatever the values contain. */
function hashComponents(components: readonly string[]): string {
  return createHash("md5").update(JSON.stringify(components)).digest("hex");
}
