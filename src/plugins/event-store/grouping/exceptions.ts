import type { RawEvent, RawExceptionValue, RawFrame } from "./raw-event.js";

/** A stack frame, reduced to what grouping and culprits read. */
export interface StackFrame {
  filename: string | null;
  module: string | null;
  function: string | null;
  inApp: boolean;
}

/** One exception of the chain, trimmed; frames oldest first (innermost last), as SDKs send them. */
export interface ExceptionInfo {
  type: string | null;
  value: string | null;
  frames: StackFrame[];
  /** The SDK's mechanism: its type, `handled` when stated, and whether the exception is synthetic. */
  mechanism: { type: string | null; handled: boolean | null; synthetic: boolean } | null;
}

const blankToNull = (value: string | undefined): string | null => value?.trim() || null;

/**
 * The exception chain in Sentry's order: the cause first, the main (outermost) exception last.
 * Entries with neither type, value nor frames say nothing and are dropped (as Relay does).
 */
export function exceptionChain(raw: RawEvent["exception"]): ExceptionInfo[] {
  return exceptionChainWithSources(raw).map(({ exception }) => exception);
}

/**
 * {@link exceptionChain} with each exception's parsed value beside it, frame for frame: grouping
 * rules match fields the chain does not keep (`abs_path`, `package`).
 */
export function exceptionChainWithSources(
  raw: RawEvent["exception"],
): Array<{ exception: ExceptionInfo; source: RawExceptionValue }> {
  return (raw?.values ?? [])
    .map((source) => ({ exception: toExceptionInfo(source), source }))
    .filter(({ exception }) => exception.type || exception.value || exception.frames.length > 0);
}

function toExceptionInfo(raw: RawExceptionValue): ExceptionInfo {
  return {
    type: blankToNull(raw.type),
    // The value keeps its lines (titles show the first one), only outer blanks go.
    value: blankToNull(raw.value),
    frames: (raw.stacktrace?.frames ?? []).map(toStackFrame),
    mechanism: raw.mechanism
      ? {
          type: blankToNull(raw.mechanism.type),
          handled: raw.mechanism.handled ?? null,
          synthetic: raw.mechanism.synthetic,
        }
      : null,
  };
}

function toStackFrame(raw: RawFrame): StackFrame {
  return {
    // Browser SDKs may send only `abs_path`; it names the same file.
    filename: blankToNull(raw.filename) ?? blankToNull(raw.abs_path),
    module: blankToNull(raw.module),
    function: blankToNull(raw.function),
    // Only an explicit `true` makes a frame in-app: SDKs mark library frames `false` or leave it out.
    inApp: raw.in_app === true,
  };
}

/** The main exception (last in the chain), or null for an event without one. */
export function mainException(chain: readonly ExceptionInfo[]): ExceptionInfo | null {
  return chain.at(-1) ?? null;
}
