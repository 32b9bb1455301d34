/** Small string helpers shared by normalisation, grouping and titles. */

/**
 * Cuts `text` to at most `max` characters, counted in code points so an emoji or other
 * astral character is never split into a lone surrogate (which PostgreSQL would reject).
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const codePoints = Array.from(text);
  return codePoints.length <= max ? text : codePoints.slice(0, max).join("");
}

/** Like `cut`, but marks the cut with an ellipsis (within `max`): for text people read. */
export function ellipsize(text: string, max: number): string {
  const cutText = cut(text, max);
  return cutText === text ? text : `${cut(text, max - 1)}…`;
}

/** Trimmed text cut to `max`, or null when nothing is left: SDKs send "" for "unset". */
export function optionalText(value: string | undefined, max: number): string | null {
  const trimmed = value?.trim();
  return trimmed ? cut(trimmed, max) : null;
}

/** The first line of `text` after trimming (titles show one line, like Sentry). */
export function firstLine(text: string): string {
  return text.trim().split(/\r?\n/, 1)[0] ?? "";
}
