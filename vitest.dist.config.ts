import { defineConfig } from "vitest/config";

/**
 * Runs against the built package (`npm run build` first): what users install is what is tested.
 * The global setup packs the tarball once for the tests that install it into fresh apps.
 */
export default defineConfig({
  // The files wait mostly on npm installs, `next build`s and child hosts: side by side, not one
  // after another (vitest would run one at a time on two cores).
  test: {
    include: ["test/dist/**/*.test.ts"],
    globalSetup: ["test/dist/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 3,
  },
});
