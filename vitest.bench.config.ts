import { defineConfig } from "vitest/config";

/** `npm run bench`: the benchmarks under test/bench, one file at a time, on real PostgreSQL. */
export default defineConfig({
  test: {
    include: ["test/bench/**/*.bench.ts"],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    reporters: ["verbose"],
  },
});
