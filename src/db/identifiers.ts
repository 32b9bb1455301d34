/** What we accept as a schema name: a plain lowercase PostgreSQL identifier. */
export const SCHEMA_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Quotes an identifier already checked against SCHEMA_NAME_PATTERN. */
export function quoteIdentifier(name: string): string {
  if (!SCHEMA_NAME_PATTERN.test(name)) throw new Error(`Invalid identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}
