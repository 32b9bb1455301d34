import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { withReleaseTables } from "../tables.js";

export interface ArtifactFileInfo {
  url: string;
  type: string;
  debugId: string | null;
  sourcemap: string | null;
  size: number;
  release: string | null;
  dist: string | null;
  bundleChecksum: string;
}

export async function listArtifactFiles(db: Kysely<Database>, organizationId: number): Promise<ArtifactFileInfo[]> {
  const rows = await withReleaseTables(db)
    .selectFrom("artifact_files as f")
    .innerJoin("artifact_bundles as b", "b.id", "f.bundle_id")
    .select(["f.url", "f.type", "f.debug_id", "f.sourcemap", "f.size", "b.release", "b.dist", "b.checksum"])
    .where("f.organization_id", "=", organizationId)
    .where("b.organization_id", "=", organizationId)
    .orderBy("b.id", "desc")
    .orderBy("f.url")
    .execute();
  return rows.map((row) => ({
    url: row.url,
    type: row.type,
    debugId: row.debug_id,
    sourcemap: row.sourcemap,
    size: row.size,
    release: row.release,
    dist: row.dist,
    bundleChecksum: row.checksum,
  }));
}
