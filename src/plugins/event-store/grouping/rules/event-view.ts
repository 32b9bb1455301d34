import type { RawExceptionValue, RawFrame } from "../raw-event.js";

/**
 * What rules read of an event (docs/grouping.md, "Matchers"), taken from its parsed payload and
 * its normalised fields, so that matching never looks at the raw JSON twice.
 */

/** A frame as matchers see it. */
export interface FrameView {
  function: string | null;
  module: string | null;
  /** `abs_path`, else `filename`: what `stack.abs_path` (alias `path`) matches, with `filename`. */
  absPath: string | null;
  filename: string | null;
  package: string | null;
  inApp: boolean;
}

export interface ExceptionView {
  type: string | null;
  value: string | null;
  /** Oldest first (innermost last), as sent. */
  frames: FrameView[];
}

export type PlatformFamily = "native" | "javascript" | "other";

/** The event as fingerprint rules see it. */
export interface EventView {
  /** The exception chain, cause first, main exception last. */
  exceptions: ExceptionView[];
  /** The formatted log message, or null. */
  message: string | null;
  logger: string | null;
  level: string;
  /** The event's tags, including `level`, `environment` and `release`. */
  tags: ReadonlyMap<string, string>;
  family: PlatformFamily;
  sdk: string | null;
  release: string | null;
  transaction: string | null;
}

const NATIVE_PLATFORMS = new Set(["native", "c", "cocoa", "objc", "swift", "cpp"]);
const JAVASCRIPT_PLATFORMS = new Set(["javascript", "node"]);

/** Sentry's platform families, as `family:` matches them. */
export function familyOf(platform: string | null): PlatformFamily {
  if (platform && NATIVE_PLATFORMS.has(platform)) return "native";
  if (platform && JAVASCRIPT_PLATFORMS.has(platform)) return "javascript";
  return "other";
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() !== "" ? value : null);

/** A frame of the payload (or of the parsed event) as matchers see it. */
export function frameView(frame: Partial<Record<keyof RawFrame, unknown>>): FrameView {
  return {
    function: text(frame.function),
    module: text(frame.module),
    absPath: text(frame.abs_path) ?? text(frame.filename),
    filename: text(frame.filename),
    package: text(frame.package),
    inApp: frame.in_app === true,
  };
}

/** An exception of the parsed event as matchers see it. */
export function exceptionView(exception: RawExceptionValue): ExceptionView {
  return {
    type: text(exception.type),
    value: text(exception.value),
    frames: (exception.stacktrace?.frames ?? []).map(frameView),
  };
}

/** The logger: a field of the payload no normalised field keeps. */
export function loggerOf(payload: Record<string, unknown>): string | null {
  return text(payload.logger);
}

/** The SDK's name (`sdk.name`), for `sdk:`. */
export function sdkName(payload: Record<string, unknown>): string | null {
  const sdk = payload.sdk;
  return typeof sdk === "object" && sdk !== null ? text((sdk as Record<string, unknown>).name) : null;
}
