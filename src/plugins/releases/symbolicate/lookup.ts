import { type Kysely, sql } from "kysely";
import type { Database } from "../../../db/schema.js";
import { type ReleasesDb, withReleaseTables } from "../tables.js";

export type MapLocation =
  | { found: true; checksum: string; url: string; resolvedWith: "debug-id" | "release" }
  | { found: false; reason: string; url: string };

/**
 * Where an event's source maps are: by debug ID first (the SDK's `debug_meta.images` pair each
 * file with the ID `sentry-cli sourcemaps inject` wrote into it), then by release + URL. A map
 * found by URL is the minified file's `sourcemap` header, resolved against the file's URL (or
 * `<file>.map`). One query per way per event.
 */
export async function locateMaps(
  db: Kysely<Database>,
  organizationId: number,
  projectId: number,
  input: MapLookupInput,
): Promise<Map<string, MapLocation>> {
  const scope: LookupScope = { rdb: withReleaseTables(db), organizationId, projectId };
  const located = new Map<string, MapLocation>();
  await locateByDebugId(scope, input, located);
  const rest = input.absPaths.filter((path) => !located.has(path));
  if (rest.length > 0 && input.release) await locateByRelease(scope, rest, input.release, input.dist, located);
  return located;
}

export interface MapLookupInput {
  absPaths: string[];
  images: Map<string, string>;
  release: string | null;
  dist: string | null;
}

interface LookupScope {
  rdb: ReleasesDb;
  organizationId: number;
  projectId: number;
}

/** The paths whose file has a debug ID: its map uploaded with that ID, or named by the file's `sourcemap` header. */
async function locateByDebugId(
  { rdb, organizationId, projectId }: LookupScope,
  input: MapLookupInput,
  located: Map<string, MapLocation>,
): Promise<void> {
  const debugIds = [...new Set(input.absPaths.flatMap((path) => input.images.get(path) ?? []))];
  if (debugIds.length === 0) return;
  const rows = await rdb
    .selectFrom("artifact_files as f")
    .innerJoin("artifact_bundles as b", "b.id", "f.bundle_id")
    .select(["f.debug_id", "f.type", "f.url", "f.sourcemap", "f.blob_checksum", "f.bundle_id", "f.id"])
    .where("f.organization_id", "=", organizationId)
    .where("b.organization_id", "=", organizationId)
    .where(forProject(projectId))
    .where("f.debug_id", "in", debugIds)
    .orderBy("f.id", "desc")
    .execute();
  // A map uploaded without its debug ID is found through the minified file's `sourcemap` header.
  const viaHeader = new Map<string, { bundleId: number; url: string }>();
  for (const debugId of debugIds) {
    if (rows.some((row) => row.debug_id === debugId && row.type === "source_map")) continue;
    const minified = rows.find((row) => row.debug_id === debugId && row.type !== "source_map");
    if (minified)
      viaHeader.set(debugId, {
        bundleId: minified.bundle_id,
        url: minified.sourcemap ? resolveRelative(minified.url, minified.sourcemap) : `${minified.url}.map`,
      });
  }
  const referenced =
    viaHeader.size === 0
      ? []
      : await rdb
          .selectFrom("artifact_files")
          .select(["bundle_id", "url", "blob_checksum"])
          .where("organization_id", "=", organizationId)
          .where("bundle_id", "in", [...new Set([...viaHeader.values()].map((ref) => ref.bundleId))])
          .where("url", "in", [...new Set([...viaHeader.values()].map((ref) => ref.url))])
          .execute();
  for (const path of input.absPaths) {
    const debugId = input.images.get(path);
    if (!debugId) continue;
    const ref = viaHeader.get(debugId);
    const row =
      rows.find((candidate) => candidate.debug_id === debugId && candidate.type === "source_map") ??
      (ref && referenced.find((file) => file.bundle_id === ref.bundleId && file.url === ref.url));
    located.set(
      path,
      row
        ? { found: true, checksum: row.blob_checksum, url: row.url, resolvedWith: "debug-id" }
        : { found: false, reason: `no source map was uploaded with debug ID ${debugId}`, url: path },
    );
  }
}

/** The other paths, by release (+ dist) and URL: the minified file, then the map its header names. */
async function locateByRelease(
  { rdb, organizationId, projectId }: LookupScope,
  paths: string[],
  release: string,
  dist: string | null,
  located: Map<string, MapLocation>,
): Promise<void> {
  const files = await rdb
    .selectFrom("artifact_files as f")
    .innerJoin("artifact_bundles as b", "b.id", "f.bundle_id")
    .select(["f.url", "f.type", "f.sourcemap", "f.blob_checksum", "f.bundle_id"])
    .where("f.organization_id", "=", organizationId)
    .where("b.organization_id", "=", organizationId)
    .where(forProject(projectId))
    .where("b.release", "=", release)
    .where((eb) => (dist ? eb("b.dist", "=", dist) : eb.val(true)))
    .where("b.state", "=", "ok")
    .orderBy("b.id", "desc")
    .execute();
  if (files.length === 0) return;
  for (const path of paths) {
    const urlsOfPath = candidateUrls(path);
    const minified = urlsOfPath
      .map((url) => files.find((file) => file.url === url && file.type !== "source_map"))
      .find((file) => file !== undefined);
    if (!minified) {
      located.set(path, {
        found: false,
        reason: `no file matching ${urlsOfPath[0] ?? path} in release ${release}`,
        url: path,
      });
      continue;
    }
    const mapUrl = minified.sourcemap ? resolveRelative(minified.url, minified.sourcemap) : `${minified.url}.map`;
    const map =
      files.find((file) => file.bundle_id === minified.bundle_id && file.url === mapUrl) ??
      files.find((file) => file.url === mapUrl);
    located.set(
      path,
      map
        ? { found: true, checksum: map.blob_checksum, url: map.url, resolvedWith: "release" }
        : { found: false, reason: `the source map ${mapUrl} was not uploaded`, url: path },
    );
  }
}

/** Bundles are uploaded for projects (`sentry-cli … --project`): only theirs map the project's events. */
const forProject = (projectId: number) => sql<boolean>`${projectId} = ANY(b.project_ids)`;

/**
 * The artifact URLs a frame's `abs_path` may have been uploaded under, best first: the URL itself
 * (query and fragment dropped), then `~/path` (`~` stands for any scheme and host), then shorter
 * `~/` suffixes of a file path (a Node frame's `/srv/app/dist/main.js` matches `~/dist/main.js`
 * and `~/main.js`, as uploaded from the build folder).
 */
export function candidateUrls(absPath: string): string[] {
  const bare = absPath.replace(/[?#].*$/s, "");
  const urls = [bare];
  let path = bare;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(bare);
  if (scheme) path = bare.slice(scheme[0].length);
  else if (bare.startsWith("file://")) path = bare.slice("file://".length);
  if (!path.startsWith("/")) path = `/${path}`;
  const segments = path.split("/").filter(Boolean);
  for (let start = 0; start < segments.length; start++) urls.push(`~/${segments.slice(start).join("/")}`);
  return [...new Set(urls)];
}

function resolveRelative(fileUrl: string, reference: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith("~/")) return reference;
  if (reference.startsWith("/")) return `~${reference}`;
  const base = fileUrl.slice(0, fileUrl.lastIndexOf("/") + 1);
  const parts: string[] = [];
  for (const part of `${base}${reference}`.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}
