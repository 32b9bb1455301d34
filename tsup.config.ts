import { defineConfig } from "tsup";

export default defineConfig((cli) => ({
  entry: {
    index: "src/index.ts",
    express: "adapters/express/index.ts",
    fastify: "adapters/fastify/index.ts",
    next: "adapters/next/index.ts",
    node: "adapters/node/index.ts",
    testing: "src/testing/index.ts",
    verify: "src/verify.ts",
    ui: "src/ui/index.ts",
    cli: "src/cli.ts",
  },
  // ESM (`dist/*.js`) for `import`, CommonJS (`dist/*.cjs`) for `require` (package.json `exports`).
  format: ["esm", "cjs"],
  // `import.meta.url` in the CommonJS build (the PGlite template beside the bundle, createRequire)
  // becomes the file's own URL, built from `__filename`.
  shims: true,
  target: "node20",
  platform: "node",
  // Declarations come from `tsc -p tsconfig.build.json` (file by file, augmentations kept), and
  // their CommonJS twins (.d.cts) from scripts/cjs-types.mjs.
  dts: false,
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  // p-retry is ESM only, which `require()` cannot load before Node 20.19: bundled, in both formats.
  noExternal: ["p-retry", "is-network-error"],
  // The pre-initialised PGlite cluster that fresh embedded databases start from (src/db/pglite-template.ts).
  // Written into this build's own output directory (a test builds to a cache directory of its own).
  // Then the dashboard's browser bundle (faultline/ui), into <out dir>/ui-assets/.
  // Threaded ingest's worker beside the bundle that starts it (scripts/build-ingest-worker.mjs).
  onSuccess: `node scripts/build-ingest-worker.mjs ${JSON.stringify(cli.outDir ?? "dist")} && node scripts/build-pglite-template.mjs ${JSON.stringify(cli.outDir ?? "dist")} && node scripts/build-ui.mjs ${JSON.stringify(cli.outDir ?? "dist")}`,
  // Framework and test-only packages are the host's to install.
  external: [
    "express",
    "fastify",
    "fastify-plugin",
    "next",
    "testcontainers",
    "@testcontainers/postgresql",
    "@electric-sql/pglite",
  ],
}));
