import { defineConfig } from "vitest/config";

/** `npm run bench`: the benchmarks under test/bench, one file at a time, on real PostgreSQL. */
export default defineConfig({
  test: {
    include: ["test/bench/**/*.bench.ts"],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    // Threaded ingest's worker, bundled beside its pool for the source run.
    globalSetup: ["test/setup/ingest-worker.ts"],
    reporters: ["verbose"],
  },
});
