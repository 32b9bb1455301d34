import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Bundles a test fixture (the real sources) for a plain `node` child, as tsup bundles src.
 * Packages stay external, so the bundle lives under node_modules/.cache, where Node resolves
 * them. No dependency on dist/. The ingest worker thread's file goes beside the bundle, as the
 * package build puts it beside dist/'s (built for the test run by test/setup/ingest-worker.ts).
 */
export async function bundleFixture(fixture: string): Promise<{ file: string; remove: () => Promise<void> }> {
  const { build } = await import("esbuild");
  const cache = join(root, "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, `faultline-${fixture}-`));
  const file = join(dir, `${fixture}.mjs`);
  await build({
    entryPoints: [join(root, `test/fixtures/${fixture}.ts`)],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "error",
  });
  await copyFile(join(root, "src/plugins/ingest/isolation/ingest-worker.js"), join(dir, "ingest-worker.js"));
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}
