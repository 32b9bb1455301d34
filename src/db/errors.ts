/** PostgreSQL's unique_violation (both `pg` and PGlite expose the SQLSTATE as `code`). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

/**
 * A PostgreSQL data exception (SQLSTATE class 22: invalid byte sequence 22021, untranslatable
 * character 22P05, datetime overflow 22008, invalid text representation 22P02…) or an input too
 * deep for its parser (54001). These mean a request value the input policy let through is one
 * the database cannot hold: the backstop renders them 400 rather than 500.
 */
export function isDataException(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && (code.startsWith("22") || code === "54001");
}
