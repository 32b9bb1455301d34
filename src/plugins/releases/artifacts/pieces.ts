import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { withReleaseTables } from "../tables.js";
import { sha1 } from "./chunks.js";
import type { ArtifactStore } from "./store.js";
import type { ZipEntrySink } from "./zip.js";

/**
 * Largest blob an unpacked file is cut into. Small enough that neither the driver nor embedded
 * PGlite (whose WebAssembly heap never shrinks) holds much per write; large enough that a big
 * source map is a few hundred rows, not thousands.
 */
export const PIECE_BYTES = 1024 * 1024;

/** An unpacked file as stored: the SHA-1 and size of its whole content, and its pieces' checksums in order. */
export interface StoredFile {
  checksum: string;
  size: number;
  pieces: string[];
}

/**
 * Writes unpacked files to the artifact store as they inflate, in content-addressed pieces of at
 * most {@link PIECE_BYTES}: each file's sink keeps less than one piece, finished pieces wait in
 * `pending` until {@link drain} stores them. A piece already stored by this writer (the same
 * bytes again, as in a file of zeros) is not sent twice.
 */
export class PieceWriter {
  #pending: Array<{ checksum: string; data: Uint8Array }> = [];
  readonly #stored = new Set<string>();

  constructor(
    private readonly store: ArtifactStore,
    private readonly organizationId: number,
  ) {}

  /** A sink for one file; `done` gets the stored file once its last byte was written. */
  open(done: (file: StoredFile) => void): ZipEntrySink {
    const whole = createHash("sha1");
    const pieces: string[] = [];
    // Bytes are copied once, into the piece they belong to: the inflater's output is garbage as
    // soon as it is written here, and fewer copies mean less garbage between collections.
    let piece = Buffer.allocUnsafe(PIECE_BYTES);
    let filled = 0;
    let size = 0;
    const cut = () => {
      const data = piece.subarray(0, filled);
      const checksum = sha1(data);
      pieces.push(checksum);
      if (!this.#stored.has(checksum)) this.#pending.push({ checksum, data });
      this.#stored.add(checksum);
    };
    return {
      write: (data) => {
        whole.update(data);
        size += data.byteLength;
        for (let at = 0; at < data.byteLength;) {
          const taken = Math.min(PIECE_BYTES - filled, data.byteLength - at);
          piece.set(data.subarray(at, at + taken), filled);
          filled += taken;
          at += taken;
          if (filled < PIECE_BYTES) continue;
          cut();
          piece = Buffer.allocUnsafe(PIECE_BYTES);
          filled = 0;
        }
      },
      end: () => {
        // An empty file is one empty piece, so that every stored file has at least one.
        if (filled > 0 || pieces.length === 0) cut();
        done({ checksum: whole.digest("hex"), size, pieces });
      },
    };
  }

  /** Stores the finished pieces waiting (one blob per write, so a write holds one piece). */
  async drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const piece = this.#pending.shift() as { checksum: string; data: Uint8Array };
      await this.store.put(this.organizationId, [piece]);
    }
  }
}

/**
 * Records which pieces make up each file stored in more than one (a file of one piece is that
 * blob itself, found by its own checksum).
 */
export async function recordPieces(
  db: Kysely<Database>,
  organizationId: number,
  files: readonly StoredFile[],
): Promise<void> {
  const multi = [
    ...new Map(files.filter((file) => file.pieces.length > 1).map((file) => [file.checksum, file])).values(),
  ];
  if (multi.length === 0) return;
  await withReleaseTables(db)
    .insertInto("artifact_blob_pieces")
    .values(
      multi.map((file) => ({
        organization_id: organizationId,
        checksum: file.checksum,
        size: file.size,
        pieces: file.pieces,
      })),
    )
    .onConflict((oc) => oc.columns(["organization_id", "checksum"]).doNothing())
    .execute();
}

/** A stored file read: its bytes, its size when over the reader's limit (not read), or null when it is not stored. */
export type StoredFileRead = { data: Uint8Array } | { tooLarge: number; limit: number } | null;

/** A stored file's content: its pieces joined, or the blob of that checksum (files of one piece, and those stored before pieces). */
export async function readStoredFile(
  db: Kysely<Database>,
  store: ArtifactStore,
  organizationId: number,
  checksum: string,
  maxBytes: number,
): Promise<StoredFileRead> {
  const pieced = await withReleaseTables(db)
    .selectFrom("artifact_blob_pieces")
    .select(["size", "pieces"])
    .where("organization_id", "=", organizationId)
    .where("checksum", "=", checksum)
    .executeTakeFirst();
  if (!pieced) {
    const data = await store.get(organizationId, checksum, { db });
    if (data && data.byteLength > maxBytes) return { tooLarge: data.byteLength, limit: maxBytes };
    return data ? { data } : null;
  }
  const size = Number(pieced.size);
  if (size > maxBytes) return { tooLarge: size, limit: maxBytes };
  const data = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of pieced.pieces) {
    const bytes = await store.get(organizationId, piece, { db });
    if (!bytes || at + bytes.byteLength > size) return null;
    data.set(bytes, at);
    at += bytes.byteLength;
  }
  return at === size ? { data } : null;
}
