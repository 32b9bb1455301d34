import type { ParsedMap } from "./cache.js";

export type Frame = Record<string, unknown>;
const CONTEXT_LINES = 5;
/** Longest context line kept (minified sources have one enormous line). */
const MAX_LINE = 200;

export interface MappedFrame {
  frame: Frame;
  /** The original name at this frame's position: the function this frame calls (the next frame's name). */
  calleeName: string | null;
}

/**
 * Maps one minified frame through its source map: original file, line, column, and the source
 * lines around it from `sourcesContent`. The function name is settled by the caller (it comes
 * from the calling frame's token). Returns null when the position is not in the map.
 */
export function mapFrame(
  frame: Frame,
  parsed: ParsedMap,
  info: { sourcemap: string; resolvedWith: string },
): MappedFrame | null {
  const line = frame.lineno;
  const column = frame.colno;
  if (typeof line !== "number" || typeof column !== "number") return null;
  const position = parsed.originalPositionFor({ line, column: Math.max(0, column - 1) });
  if (position.source === null || position.line === null) return null;
  const sourceIndex = parsed.map.resolvedSources.indexOf(position.source);
  const source = sourceIndex >= 0 ? (parsed.map.sources[sourceIndex] ?? position.source) : position.source;
  const mapped: Frame = {
    ...frame,
    abs_path: position.source,
    filename: displayName(source),
    lineno: position.line,
    colno: position.column + 1,
    data: {
      ...(isObject(frame.data) ? frame.data : {}),
      sourcemap: info.sourcemap,
      resolved_with: info.resolvedWith,
      symbolicated: true,
    },
  };
  // `module` names the minified file (hashed names differ per build); grouping uses the mapped filename.
  delete mapped.module;
  const lines = sourceIndex >= 0 ? parsed.lines(sourceIndex) : null;
  if (lines && position.line <= lines.length) {
    const at = position.line - 1;
    mapped.pre_context = lines.slice(Math.max(0, at - CONTEXT_LINES), at).map(clip);
    mapped.context_line = clip(lines[at] ?? "");
    mapped.post_context = lines.slice(at + 1, at + 1 + CONTEXT_LINES).map(clip);
  } else {
    delete mapped.pre_context;
    delete mapped.context_line;
    delete mapped.post_context;
  }
  return { frame: mapped, calleeName: position.name };
}

/** The name of the function enclosing `line` in the original source, found by scanning back for its declaration. */
export function enclosingFunction(lines: string[] | null, line: number): string | null {
  if (!lines) return null;
  const declaration =
    /(?:function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)|^\s*(?:(?:public|private|protected|static|async|override)\s+)*([A-Za-z_$][\w$]*)\s*\([^()]*\)\s*(?::[^{]+)?\{)/;
  for (let at = Math.min(line, lines.length) - 1; at >= Math.max(0, line - 200); at--) {
    const match = declaration.exec(lines[at] ?? "");
    const name = match?.[1] ?? match?.[2] ?? match?.[3];
    if (name && !KEYWORDS.has(name)) return name;
  }
  return null;
}

const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "return", "function", "constructor"]);

/** `webpack://shop/./src/a.ts` → `./src/a.ts`; `../src/a.ts` stays. */
function displayName(source: string): string {
  return source.replace(/^webpack:\/\/[^/]*\//, "").replace(/^[a-z][a-z0-9+.-]*:\/\/\/?/i, "");
}

function clip(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
