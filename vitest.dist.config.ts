import { defineConfig } from "vitest/config";

/**
 * Runs against the built package (`npm run build` first): what users install is what is tested.
 * The global setup packs the tarball once for the tests that install it into fresh apps.
 */
export default defineConfig({
  test: { include: ["test/dist/**/*.test.ts"], globalSetup: ["test/dist/global-setup.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
});
