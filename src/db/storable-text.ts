/**
 * Text PostgreSQL can store: `text` and `jsonb` refuse the NUL character (SQLSTATE 22021 / 22P05),
 * and an unpaired UTF-16 surrogate cannot be encoded as UTF-8 (jsonb refuses its `"\ud800"`
 * escape; the driver would silently turn it into U+FFFD in `text`). The HTTP input policy refuses
 * such text; ingestion and delivery logs repair it.
 */

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");
const NUL = "\u0000";

/** What is wrong with a piece of text, or null when PostgreSQL will store it as is. */
export function textProblem(text: string): "a NUL character" | "an unpaired UTF-16 surrogate" | null {
  if (text.includes(NUL)) return "a NUL character";
  return LONE_SURROGATE.test(text) ? "an unpaired UTF-16 surrogate" : null;
}

/** The text with every NUL and unpaired surrogate replaced by U+FFFD (what `toWellFormed` does for surrogates). */
export function repairText(text: string): string {
  if (textProblem(text) === null) return text;
  return text.replaceAll(NUL, "\uFFFD").replace(LONE_SURROGATES, "\uFFFD");
}
