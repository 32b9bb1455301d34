const encoder = new TextEncoder();

/**
 * The longest prefix of `text` that is at most `maxBytes` bytes of UTF-8, never splitting a
 * character (`encodeInto` writes whole characters only).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text; // no string this short can exceed it
  const bytes = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, bytes);
  return text.slice(0, read);
}
