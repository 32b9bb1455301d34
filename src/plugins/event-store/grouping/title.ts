import type { ExceptionInfo, StackFrame } from "./exceptions.js";
import { mainException } from "./exceptions.js";
import { cut, ellipsize, firstLine } from "./text.js";

const MAX_TITLE_VALUE_LENGTH = 100;
const MAX_CULPRIT_LENGTH = 200;
export const UNLABELED_TITLE = "<unlabeled event>";

/** What titles and culprits read from a normalised event. */
export interface TitleInput {
  platform: string | null;
  exceptions: readonly ExceptionInfo[];
  /** The formatted message. */
  message: string | null;
  /** `culprit`, `transaction` and `request.url` as the SDK sent them. */
  culprit: string | undefined;
  transaction: string | undefined;
  requestUrl: string | undefined;
}

export interface EventLabels {
  title: string;
  culprit: string;
  metadata: Record<string, unknown>;
  /** Filename of the crashing frame, or null. */
  location: string | null;
}

/** Title, culprit, metadata and location, as Sentry shows them. */
export function describeEvent(input: TitleInput): EventLabels {
  const crashFrame = crashFrameOf(input.exceptions);
  const culprit = cut(chooseCulprit(input, crashFrame), MAX_CULPRIT_LENGTH);
  const location = crashFrame?.filename ?? null;
  const exception = mainException(input.exceptions);
  if (exception?.mechanism?.synthetic && exception.value) {
    // A synthetic exception only carries a stack for a message (browser SDKs' captureMessage with
    // attachStacktrace): Sentry records no type for it, so the title is the value (the message) alone.
    const value = exception.value;
    const metadata = {
      value,
      ...(crashFrame?.filename && { filename: crashFrame.filename }),
      ...(crashFrame?.function && { function: crashFrame.function }),
    };
    return { title: ellipsize(firstLine(value), MAX_TITLE_VALUE_LENGTH), culprit, metadata, location };
  }
  if (exception) {
    const type = exception.type ?? "Error";
    const value = exception.value ?? "";
    const metadata = {
      type,
      value,
      ...(crashFrame?.filename && { filename: crashFrame.filename }),
      ...(crashFrame?.function && { function: crashFrame.function }),
    };
    return { title: exceptionTitle(type, value), culprit, metadata, location };
  }
  const title = messageTitle(input.message);
  return { title, culprit, metadata: { title }, location };
}

/** The SDK's own culprit, else the transaction, else the crashing frame, else the request URL. */
function chooseCulprit(input: TitleInput, crashFrame: StackFrame | null): string {
  return (
    nonBlank(input.culprit) ??
    nonBlank(input.transaction) ??
    (crashFrame ? frameCulprit(crashFrame, input.platform) : null) ??
    nonBlank(input.requestUrl) ??
    ""
  );
}

/** `"<type>: <first line of value>"`, the value part cut to 100; just the type without a value. */
function exceptionTitle(type: string, value: string): string {
  const line = firstLine(value);
  return line ? `${type}: ${ellipsize(line, MAX_TITLE_VALUE_LENGTH)}` : type;
}

function messageTitle(message: string | null): string {
  const line = message === null ? "" : firstLine(message);
  return line ? ellipsize(line, MAX_TITLE_VALUE_LENGTH) : UNLABELED_TITLE;
}

/**
 * The frame the error happened in: the innermost in-app frame of the main exception (the
 * innermost frame when none is in-app). When the main exception has no frames (e.g. a wrapper
 * created without a stack), the nearest cause that has some is used, as Sentry does.
 */
export function crashFrameOf(exceptions: readonly ExceptionInfo[]): StackFrame | null {
  const withFrames = exceptions.findLast((exception) => exception.frames.length > 0);
  if (!withFrames) return null;
  return withFrames.frames.findLast((frame) => frame.inApp) ?? withFrames.frames.at(-1) ?? null;
}

const JAVASCRIPT_PLATFORMS = new Set(["javascript", "node"]);

/** `function(module)` on JavaScript platforms, `module in function` elsewhere (Sentry's formats). */
function frameCulprit(frame: StackFrame, platform: string | null): string | null {
  const where = frame.module ?? frame.filename;
  if (!where) return null;
  const fn = frame.function ?? "?";
  return platform !== null && JAVASCRIPT_PLATFORMS.has(platform.toLowerCase())
    ? `${fn}(${where})`
    : `${where} in ${fn}`;
}

function nonBlank(value: string | undefined): string | null {
  return value?.trim() || null;
}
