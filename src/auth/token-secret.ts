import type { TokenKind } from "../db/schema.js";
import { randomBase62, sha256Hex } from "../crypto/secrets.js";

/** Token prefixes let secret scanners recognise a leaked Faultline token. */
export const TOKEN_PREFIXES: Record<TokenKind, string> = {
  user: "flu_",
  organization: "flo_",
  installation: "fli_",
  scim: "fls_",
};

const TOKEN_BODY_LENGTH = 40; // ~238 bits
const TOKEN_PATTERN = /^fl[uois]_[A-Za-z0-9]{20,128}$/;

export interface TokenSecret {
  plaintext: string;
  hash: string;
  prefix: string;
  lastCharacters: string;
}

/** A new token of this kind, or the host-chosen plaintext (demo seeding) after checking its form. */
export function createTokenSecret(kind: TokenKind, plaintext?: string): TokenSecret {
  const prefix = TOKEN_PREFIXES[kind];
  const value = plaintext ?? `${prefix}${randomBase62(TOKEN_BODY_LENGTH)}`;
  if (!value.startsWith(prefix) || !TOKEN_PATTERN.test(value)) {
    throw new Error(`A ${kind} token must look like ${prefix} followed by 20-128 letters or digits`);
  }
  return { plaintext: value, hash: hashToken(value), prefix, lastCharacters: value.slice(-4) };
}

export function hashToken(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** Cheap shape check before any database lookup. */
export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}
