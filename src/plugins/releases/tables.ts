import type { ColumnType, Generated, Kysely } from "kysely";
import type { Database } from "../../db/schema.js";

type Timestamp = ColumnType<Date, Date, Date>;
type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>;

export interface ReleaseDetailsTable {
  id: Generated<number>;
  organization_id: number;
  version: string;
  ref: string | null;
  url: string | null;
  date_released: NullableTimestamp;
  /** The commits as the client gave them (`[{id, message, …}]`), JSON text on write. */
  commits: ColumnType<unknown[], string | undefined, string>;
  date_created: Timestamp;
}

export interface ReleaseDeploysTable {
  id: Generated<number>;
  organization_id: number;
  version: string;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: NullableTimestamp;
  date_finished: Timestamp;
}

export interface ArtifactBlobsTable {
  organization_id: number;
  checksum: string;
  size: number;
  data: Uint8Array;
  date_created: ColumnType<Date, Date | undefined, never>;
}

/** A file stored in several blobs (pieces), by the checksum of its whole content. */
export interface ArtifactBlobPiecesTable {
  organization_id: number;
  checksum: string;
  /** The whole file's bytes (bigint: a file may pass 2 GiB in principle; read as text by the driver). */
  size: ColumnType<string | number, number, number>;
  /** The pieces' checksums, in order; each is a blob of the artifact store. */
  pieces: string[];
}

export type AssembleState = "created" | "assembling" | "ok" | "error";

export interface ArtifactBundlesTable {
  id: Generated<number>;
  organization_id: number;
  checksum: string;
  release: string | null;
  dist: string | null;
  project_ids: number[];
  state: AssembleState;
  detail: string | null;
  file_count: Generated<number>;
  date_created: Timestamp;
  /** When the current assembly began (null for bundles assembled before assembly was recorded). */
  date_started: NullableTimestamp;
}

export interface ArtifactFilesTable {
  id: Generated<number>;
  organization_id: number;
  bundle_id: number;
  /** `~/static/main.js`: the URL the file is served at, `~/` standing for any scheme and host. */
  url: string;
  /** `minified_source`, `source_map`, `source`… as the bundle manifest says. */
  type: string;
  debug_id: string | null;
  /** The minified file's `Sourcemap` header: the map's URL, relative to the file. */
  sourcemap: string | null;
  blob_checksum: string;
  size: number;
}

export type ReleasesTables = {
  release_details: ReleaseDetailsTable;
  release_deploys: ReleaseDeploysTable;
  artifact_blobs: ArtifactBlobsTable;
  artifact_bundles: ArtifactBundlesTable;
  artifact_files: ArtifactFilesTable;
  artifact_blob_pieces: ArtifactBlobPiecesTable;
};

export type ReleasesDb = Kysely<Database & ReleasesTables>;

/** The core database handle, typed with this plugin's tables too. */
export const withReleaseTables = (db: Kysely<Database>): ReleasesDb => db.withTables<ReleasesTables>();
