import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { pickBackend } from "../../src/testing/index.js";

/** A database of the backend under test, with a raw SQL handle, for storage-level tests. */
export interface RawDatabase {
  /** What to pass as `database` to createFaultline. */
  input: string | PGlite;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function openRawDatabase(): Promise<RawDatabase> {
  const { backend, url } = await pickBackend();
  if (backend === "pglite" || !url) {
    const db = await PGlite.create();
    return {
      input: db,
      query: async <T>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows,
      close: () => db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    input: url,
    query: async <T>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as T[],
    close: () => pool.end(),
  };
}
