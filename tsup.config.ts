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
    cli: "src/cli.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  // Declarations come from `tsc -p tsconfig.build.json` (file by file, augmentations kept).
  dts: false,
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  // Framework and test-only packages are the host's to install.
  // The pre-initialised PGlite cluster that fresh embedded databases start from (src/db/pglite-template.ts).
  // Written into this build's own output directory (a test builds to a cache directory of its own).
  onSuccess: `node scripts/build-pglite-template.mjs ${JSON.stringify(cli.outDir ?? "dist")}`,
  external: ["express", "fastify", "fastify-plugin", "next", "testcontainers", "@testcontainers/postgresql", "@electric-sql/pglite"],
}));
