/**
 * A versioned schema change shipped as code. `statements` receives the quoted schema name and
 * returns plain SQL statements, run one by one in the migration's transaction (PGlite's extended
 * protocol takes one statement per query, so they are never joined).
 */
export interface SchemaMigration {
  /** Sortable, never renamed once released: it is the key in the migration table. */
  name: string;
  statements(quotedSchema: string): string[];
}
