import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { withReleaseTables } from "../tables.js";

/** The transaction to work in, when the caller has one (stores in the database use it). */
export interface StoreContext {
  db?: Kysely<Database>;
}

/**
 * Where uploaded chunks and artifact files live, content-addressed by SHA-1 (hex) per
 * organization. PostgreSQL by default; a host can put blobs in its own object store by
 * registering another implementation under `ArtifactStoreToken` (docs/releases-and-source-maps.md has an
 * S3-compatible example).
 */
export interface ArtifactStore {
  /** Stores the blobs not stored yet (a checksum already there is left alone). */
  put(organizationId: number, blobs: ReadonlyArray<{ checksum: string; data: Uint8Array }>, ctx?: StoreContext): Promise<void>;
  /** The subset of `checksums` that is stored. */
  has(organizationId: number, checksums: readonly string[], ctx?: StoreContext): Promise<Set<string>>;
  get(organizationId: number, checksum: string, ctx?: StoreContext): Promise<Uint8Array | null>;
}

/** Blobs as `bytea` rows of `artifact_blobs`, deduplicated by (organization, checksum). */
export class PostgresArtifactStore implements ArtifactStore {
  constructor(private readonly db: () => Kysely<Database>) {}

  async put(organizationId: number, blobs: ReadonlyArray<{ checksum: string; data: Uint8Array }>, ctx: StoreContext = {}): Promise<void> {
    if (blobs.length === 0) return;
    const unique = new Map(blobs.map((blob) => [blob.checksum, blob]));
    await withReleaseTables(ctx.db ?? this.db())
      .insertInto("artifact_blobs")
      .values([...unique.values()].sort((a, b) => (a.checksum < b.checksum ? -1 : 1)).map(({ checksum, data }) => ({ organization_id: organizationId, checksum, size: data.byteLength, data })))
      .onConflict((oc) => oc.columns(["organization_id", "checksum"]).doNothing())
      .execute();
  }

  async has(organizationId: number, checksums: readonly string[], ctx: StoreContext = {}): Promise<Set<string>> {
    if (checksums.length === 0) return new Set();
    const rows = await withReleaseTables(ctx.db ?? this.db())
      .selectFrom("artifact_blobs")
      .select("checksum")
      .where("organization_id", "=", organizationId)
      .where("checksum", "in", [...new Set(checksums)])
      .execute();
    return new Set(rows.map((row) => row.checksum));
  }

  async get(organizationId: number, checksum: string, ctx: StoreContext = {}): Promise<Uint8Array | null> {
    const row = await withReleaseTables(ctx.db ?? this.db())
      .selectFrom("artifact_blobs")
      .select("data")
      .where("organization_id", "=", organizationId)
      .where("checksum", "=", checksum)
      .executeTakeFirst();
    return row ? new Uint8Array(row.data) : null;
  }
}
