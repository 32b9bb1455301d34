import type { ApiToken } from "../../db/schema.js";
import { idString, isoDate } from "../../http/format.js";

export function serializeToken(token: ApiToken) {
  return {
    id: idString(token.id),
    name: token.name,
    scopes: token.scopes,
    dateCreated: isoDate(token.date_created),
    expiresAt: token.expires_at ? isoDate(token.expires_at) : null,
    tokenLastCharacters: token.token_last_characters,
  };
}
