import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The path of the tarball `npm pack` wrote from this checkout. */
    packedTarball: string;
  }
}

/**
 * Packs the package once for every test file that installs it into fresh apps (they run in
 * parallel workers). dist/ is built already (test:dist runs after the build): --ignore-scripts
 * skips prepack's rebuild.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), "faultline-pack-"));
  await promisify(execFile)("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", root], { cwd: resolve(import.meta.dirname, "../..") });
  const tarball = (await readdir(root)).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no tarball");
  project.provide("packedTarball", join(root, tarball));
  return () => rm(root, { recursive: true, force: true });
}
