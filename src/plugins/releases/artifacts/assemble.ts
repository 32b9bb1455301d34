import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { runInTransaction } from "../../../db/transaction.js";
import { type AssembleState, withReleaseTables } from "../tables.js";
import { sha1 } from "./chunks.js";
import type { ArtifactStore } from "./store.js";
import { readZip } from "./zip.js";

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

const LIMITS = { maxEntries: 20_000, maxBytes: 512 * 1024 * 1024 };
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * Assembles an artifact bundle from uploaded chunks: the chunks in order must hash to
 * `checksum`; the ZIP's `manifest.json` lists each file's URL, type and headers (`debug-id`,
 * `sourcemap`). Files are stored content-addressed and indexed by debug ID and URL. Done at
 * once (bundles are small), so the first poll after this answers `ok` — or `error` with why.
 */
export async function assembleBundle(db: () => Kysely<Database>, store: ArtifactStore, organizationId: number, input: AssembleRequest, now: Date): Promise<AssembleReply> {
  const existing = await withReleaseTables(db())
    .selectFrom("artifact_bundles")
    .select(["state", "detail"])
    .where("organization_id", "=", organizationId)
    .where("checksum", "=", input.checksum)
    .executeTakeFirst();
  if (existing) return { state: existing.state, detail: existing.detail, missingChunks: [] };
  if (input.chunks.length === 0) return { state: "not_found", detail: null, missingChunks: [] };
  const present = await store.has(organizationId, input.chunks);
  const missing = [...new Set(input.chunks.filter((chunk) => !present.has(chunk)))];
  if (missing.length > 0) return { state: "not_found", detail: null, missingChunks: missing };

  let files: Array<ManifestFile & { data: Buffer }>;
  try {
    files = await unpack(store, organizationId, input);
  } catch (error) {
    const detail = `Invalid artifact bundle: ${(error as Error).message}`;
    await recordBundle(db, organizationId, input, now, "error", detail, []);
    return { state: "error", detail, missingChunks: [] };
  }
  await runInTransaction(db(), async ({ trx }) => {
    await store.put(organizationId, files.map((file) => ({ checksum: sha1(file.data), data: file.data })), { db: trx });
    await recordBundle(() => trx, organizationId, input, now, "ok", null, files);
  });
  return { state: "ok", detail: null, missingChunks: [] };
}

async function unpack(store: ArtifactStore, organizationId: number, input: AssembleRequest): Promise<Array<ManifestFile & { data: Buffer }>> {
  const parts: Uint8Array[] = [];
  for (const chunk of input.chunks) {
    const data = await store.get(organizationId, chunk);
    if (!data) throw new Error(`chunk ${chunk} is gone`);
    parts.push(data);
  }
  const archive = Buffer.concat(parts);
  if (sha1(archive) !== input.checksum) throw new Error("the chunks do not add up to the bundle's checksum");
  const entries = readZip(archive, LIMITS);
  const manifestBytes = entries.get("manifest.json");
  if (!manifestBytes) throw new Error("manifest.json is missing");
  const manifest = JSON.parse(manifestBytes.toString("utf8")) as { files?: Record<string, { url?: unknown; type?: unknown; headers?: Record<string, unknown> }> };
  const files: Array<ManifestFile & { data: Buffer }> = [];
  for (const [path, info] of Object.entries(manifest.files ?? {})) {
    const data = entries.get(path);
    if (!data || typeof info.url !== "string") continue;
    const headers = Object.fromEntries(Object.entries(info.headers ?? {}).map(([key, value]) => [key.toLowerCase(), typeof value === "string" ? value : null]));
    const debugId = headers["debug-id"] ?? null;
    files.push({
      url: info.url,
      type: typeof info.type === "string" ? info.type : "source",
      debugId: debugId && UUID.test(debugId) ? debugId.toLowerCase() : null,
      sourcemap: headers["sourcemap"] ?? headers["x-sourcemap"] ?? null,
      data,
    });
  }
  return files;
}

async function recordBundle(
  db: () => Kysely<Database>,
  organizationId: number,
  input: AssembleRequest,
  now: Date,
  state: AssembleState,
  detail: string | null,
  files: Array<ManifestFile & { data: Buffer }>,
): Promise<void> {
  const rdb = withReleaseTables(db());
  const bundle = await rdb
    .insertInto("artifact_bundles")
    .values({ organization_id: organizationId, checksum: input.checksum, release: input.version, dist: input.dist, project_ids: input.projectIds, state, detail, file_count: files.length, date_created: now })
    .onConflict((oc) => oc.columns(["organization_id", "checksum"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  // A concurrent assemble of the same bundle won: its rows stand.
  if (!bundle || files.length === 0) return;
  await rdb
    .insertInto("artifact_files")
    .values(
      files.map((file) => ({
        organization_id: organizationId,
        bundle_id: bundle.id,
        url: file.url,
        type: file.type,
        debug_id: file.debugId,
        sourcemap: file.sourcemap,
        blob_checksum: sha1(file.data),
        size: file.data.byteLength,
      })),
    )
    .execute();
}
