import { defineConfig } from "vitest/config";

/** Runs against the built package (`npm run build` first): what users install is what is tested. */
export default defineConfig({
  test: { include: ["test/dist/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
});
