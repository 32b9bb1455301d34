/**
 * URL text as a hostile client writes it: percent-encoding of any UTF-16 (lone surrogates
 * included) and segments that trouble decoders, parsers and id columns.
 */

/**
 * Percent-encodes text as UTF-8, lone surrogates included (as the 3-byte sequences a careless
 * client sends, which are not valid UTF-8): `encodeURIComponent` would throw on them.
 */
export function percentEncode(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    let code = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (code < 0x80 && /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(code))) {
      out += String.fromCharCode(code);
      continue;
    }
    const bytes =
      code < 0x80
        ? [code]
        : code < 0x800
          ? [0xc0 | (code >> 6), 0x80 | (code & 0x3f)]
          : code < 0x10000
            ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            : [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  }
  return out;
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** URL text that no decoder can turn into a seeded value, and that is not a `.`/`..` segment the URL parser would resolve. */
export const RAW_TROUBLE = [
  "%00",
  "a%00b",
  "%ED%A0%80",
  "%C0%80",
  "%FF%FE",
  "%zz",
  "%",
  "%2F",
  "99999999999999999999999",
  "9223372036854775808",
  "-1",
  "0",
  "1e309",
  "NaN",
  "0x10",
  "%F0%9F%9A%80",
  "%C3%A9",
  "%20",
  "null",
  "__proto__",
  "constructor",
  "00000000-0000-0000-0000-000000000000",
  "not-a-uuid-0000-0000",
];
