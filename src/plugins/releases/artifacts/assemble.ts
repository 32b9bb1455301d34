import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import { type AssembleState, withReleaseTables } from "../tables.js";
import { PieceWriter, recordPieces, type StoredFile } from "./pieces.js";
import type { ArtifactStore } from "./store.js";
import { InvalidBundleError, type ZipEntrySink, type ZipLimits, ZipStreamReader } from "./zip.js";

export interface AssembleRequest {
  checksum: string;
  chunks: string[];
  projectIds: number[];
  version: string | null;
  dist: string | null;
}

/** Sentry's answer: `not_found` (send the `missingChunks`), `created`/`assembling` (poll again), `ok`, `error`. */
export interface AssembleReply {
  state: AssembleState | "not_found";
  missingChunks: string[];
  detail: string | null;
}

interface ManifestFile {
  url: string;
  type: string;
  debugId: string | null;
  sourcemap: string | null;
}

/** The manifest is parsed whole (every file's URL and headers): kept to a size that stays cheap. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** An assembly still `assembling` after this long was left behind by a process that died: the next poll takes it over. */
const STALE_ASSEMBLY_MS = 10 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * Assembles an artifact bundle from uploaded chunks: the chunks in order must hash to
 * `checksum`; the ZIP's `manifest.json` lists each file's URL, type and headers (`debug-id`,
 * `sourcemap`). The archive is read chunk by chunk and each file is stored in pieces as it
 * inflates (artifacts/pieces.ts), so memory does not grow with the bundle. The bundle is marked
 * `assembling` first — a poll meanwhile answers that instead of starting a second assembly —
 * and ends `ok`, or `error` with why.
 */
export async function assembleBundle(
  db: () => Kysely<Database>,
  store: ArtifactStore,
  organizationId: number,
  input: AssembleRequest,
  now: Date,
  limits: ZipLimits,
): Promise<AssembleReply> {
  const existing = await withReleaseTables(db())
    .selectFrom("artifact_bundles")
    .select(["id", "state", "detail", "date_started"])
    .where("organization_id", "=", organizationId)
    .where("checksum", "=", input.checksum)
    .executeTakeFirst();
  if (existing && !isStale(existing, now)) return { state: existing.state, detail: existing.detail, missingChunks: [] };
  if (input.chunks.length === 0) return { state: "not_found", detail: null, missingChunks: [] };
  const present = await store.has(organizationId, input.chunks);
  const missing = [...new Set(input.chunks.filter((chunk) => !present.has(chunk)))];
  if (missing.length > 0) return { state: "not_found", detail: null, missingChunks: missing };

  const bundleId = await claim(db(), organizationId, input, now, existing);
  if (bundleId === null) return { state: "assembling", detail: null, missingChunks: [] };
  try {
    const files = await unpack(store, organizationId, input, limits);
    await runInTransaction(db(), async ({ trx }) => {
      await recordPieces(trx, organizationId, files);
      await recordFiles(trx, organizationId, bundleId, files);
    });
    return { state: "ok", detail: null, missingChunks: [] };
  } catch (error) {
    if (!(error instanceof InvalidBundleError)) {
      // Not the bundle's fault (the database, the store): the next poll tries again rather than
      // finding it `assembling` until it goes stale. Best effort: the database may be what failed.
      await withReleaseTables(db())
        .deleteFrom("artifact_bundles")
        .where("id", "=", bundleId)
        .where("state", "=", "assembling")
        .execute()
        .catch(() => undefined);
      throw error;
    }
    const detail = `Invalid artifact bundle: ${error.message}`;
    await withReleaseTables(db())
      .updateTable("artifact_bundles")
      .set({ state: "error", detail })
      .where("id", "=", bundleId)
      .execute();
    return { state: "error", detail, missingChunks: [] };
  }
}

const isStale = (bundle: { state: AssembleState; date_started: Date | null }, now: Date): boolean =>
  bundle.state === "assembling" &&
  (bundle.date_started === null || now.getTime() - bundle.date_started.getTime() > STALE_ASSEMBLY_MS);

/** Marks the bundle `assembling` for this call: its id, or null when another call holds it. */
async function claim(
  db: Kysely<Database>,
  organizationId: number,
  input: AssembleRequest,
  now: Date,
  stale: { id: number; date_started: Date | null } | undefined,
): Promise<number | null> {
  const rdb = withReleaseTables(db);
  if (stale) {
    const taken = await rdb
      .updateTable("artifact_bundles")
      .set({ date_started: now })
      .where("id", "=", stale.id)
      .where("state", "=", "assembling")
      .where((eb) =>
        stale.date_started === null ? eb("date_started", "is", null) : eb("date_started", "=", stale.date_started),
      )
      .returning("id")
      .executeTakeFirst();
    return taken?.id ?? null;
  }
  const created = await rdb
    .insertInto("artifact_bundles")
    .values({
      organization_id: organizationId,
      checksum: input.checksum,
      release: input.version,
      dist: input.dist,
      project_ids: input.projectIds,
      state: "assembling",
      detail: null,
      date_created: now,
      date_started: now,
    })
    .onConflict((oc) => oc.columns(["organization_id", "checksum"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return created?.id ?? null;
}

/** Streams the chunks, in order, through the ZIP reader into the store; then reads the manifest. */
async function unpack(
  store: ArtifactStore,
  organizationId: number,
  input: AssembleRequest,
  limits: ZipLimits,
): Promise<Array<ManifestFile & StoredFile>> {
  const writer = new PieceWriter(store, organizationId);
  const stored = new Map<string, StoredFile>();
  const manifest = new ManifestSink();
  const reader = new ZipStreamReader(
    limits,
    (name) => (name === "manifest.json" ? manifest : writer.open((file) => stored.set(name, file))),
    () => writer.drain(),
  );
  const archive = createHash("sha1");
  for (const [index, chunk] of input.chunks.entries()) {
    const data = await store.get(organizationId, chunk);
    if (!data) throw new InvalidBundleError(`chunk ${chunk} is gone`);
    archive.update(data);
    await reader.push(data, index === input.chunks.length - 1);
  }
  if (archive.digest("hex") !== input.checksum)
    throw new InvalidBundleError("the chunks do not add up to the bundle's checksum");
  const files: Array<ManifestFile & StoredFile> = [];
  for (const [path, info] of Object.entries(manifest.parse().files ?? {})) {
    const file = stored.get(path);
    if (!file || typeof info.url !== "string") continue;
    const headers = Object.fromEntries(
      Object.entries(info.headers ?? {}).map(([key, value]) => [
        key.toLowerCase(),
        typeof value === "string" ? value : null,
      ]),
    );
    const debugId = headers["debug-id"] ?? null;
    files.push({
      url: info.url,
      type: typeof info.type === "string" ? info.type : "source",
      debugId: debugId && UUID.test(debugId) ? debugId.toLowerCase() : null,
      sourcemap: headers["sourcemap"] ?? headers["x-sourcemap"] ?? null,
      ...file,
    });
  }
  return files;
}

type Manifest = { files?: Record<string, { url?: unknown; type?: unknown; headers?: Record<string, unknown> }> };

/** `manifest.json`, kept whole (up to {@link MAX_MANIFEST_BYTES}) to be parsed once the archive is read. */
class ManifestSink implements ZipEntrySink {
  #parts: Buffer[] = [];
  #size = 0;
  #ended = false;

  write(data: Uint8Array): void {
    this.#size += data.byteLength;
    if (this.#size > MAX_MANIFEST_BYTES)
      throw new InvalidBundleError(`manifest.json is larger than ${MAX_MANIFEST_BYTES} bytes`);
    this.#parts.push(Buffer.from(data));
  }

  end(): void {
    this.#ended = true;
  }

  parse(): Manifest {
    if (!this.#ended) throw new InvalidBundleError("manifest.json is missing");
    try {
      const parsed: unknown = JSON.parse(Buffer.concat(this.#parts).toString("utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
      return parsed as Manifest;
    } catch (error) {
      throw new InvalidBundleError(`manifest.json is not valid: ${(error as Error).message}`);
    }
  }
}

async function recordFiles(
  db: Kysely<Database>,
  organizationId: number,
  bundleId: number,
  files: ReadonlyArray<ManifestFile & StoredFile>,
): Promise<void> {
  const rdb = withReleaseTables(db);
  await rdb
    .updateTable("artifact_bundles")
    .set({ state: "ok", detail: null, file_count: files.length })
    .where("id", "=", bundleId)
    .execute();
  if (files.length === 0) return;
  await rdb
    .insertInto("artifact_files")
    .values(
      files.map((file) => ({
        organization_id: organizationId,
        bundle_id: bundleId,
        url: file.url,
        type: file.type,
        debug_id: file.debugId,
        sourcemap: file.sourcemap,
        blob_checksum: file.checksum,
        size: file.size,
      })),
    )
    .execute();
}
