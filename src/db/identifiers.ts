import { type RawBuilder, sql } from "kysely";

/** What we accept as a schema name: a plain lowercase PostgreSQL identifier. */
export const SCHEMA_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Quotes an identifier already checked against SCHEMA_NAME_PATTERN. */
export function quoteIdentifier(name: string): string {
  if (!SCHEMA_NAME_PATTERN.test(name)) throw new Error(`Invalid identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/**
 * Names tables of `schema` in raw SQL, where the Kysely instance's `withSchema` does not reach
 * (it covers built queries only).
 */
export function tableIn(schema: string): (name: string) => RawBuilder<unknown> {
  const quoted = quoteIdentifier(schema);
  return (name) => sql.raw(`${quoted}.${name}`);
}
