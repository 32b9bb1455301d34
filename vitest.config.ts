import { defineConfig } from "vitest/config";

const integration = ["test/integration/**/*.test.ts"];
/**
 * Unmodified Sentry clients (sentry-cli, @sentry/node, @sentry/api, the MCP server): what they
 * test is the wire, so they run once — on PostgreSQL, the production database, when
 * TEST_DATABASE_URL is set (CI), else on the embedded default. The embedded database's storage
 * (blobs included) is covered by test/integration on both (CI's budget: ~1 minute).
 */
const compat = ["test/compat/**/*.test.ts"];
const postgres = Boolean(process.env.TEST_DATABASE_URL);
/**
 * The framework adapters and the dashboard over HTTP and in Chromium: what they test is the HTTP
 * side, the same whatever the database, so they run once, on the embedded default (CI's budget:
 * they were ~3 minutes of the PostgreSQL run). Everything under test/integration runs on both.
 */
const adapters = ["test/adapters/**/*.test.ts"];

/**
 * `npm test` runs the integration suite on embedded PGlite, and again on real PostgreSQL when
 * TEST_DATABASE_URL is set (CI sets it). Unit tests need no database and run once.
 */
export default defineConfig({
  // Examples import the package by name; in the source test run that name means the sources.
  resolve: {
    alias: [
      { find: /^faultline\/verify$/, replacement: new URL("./src/verify.ts", import.meta.url).pathname },
      { find: /^faultline\/express$/, replacement: new URL("./adapters/express/index.ts", import.meta.url).pathname },
      { find: /^faultline\/fastify$/, replacement: new URL("./adapters/fastify/index.ts", import.meta.url).pathname },
      { find: /^faultline\/next$/, replacement: new URL("./adapters/next/index.ts", import.meta.url).pathname },
      { find: /^faultline\/node$/, replacement: new URL("./adapters/node/index.ts", import.meta.url).pathname },
      { find: /^faultline\/ui$/, replacement: new URL("./src/ui/index.ts", import.meta.url).pathname },
      { find: /^faultline\/testing$/, replacement: new URL("./src/testing/index.ts", import.meta.url).pathname },
      { find: /^faultline$/, replacement: new URL("./src/index.ts", import.meta.url).pathname },
    ],
  },
  test: {
    // A PGlite dump for every embedded database the tests open (no initdb each time), and the
    // dashboard's browser bundle where the source faultline/ui looks for it (src/ui/ui-assets/).
    // The ingest worker thread's bundle beside its pool (test/setup/ingest-worker.ts).
    globalSetup: ["test/setup/pglite-template.ts", "test/setup/dashboard.ts", "test/setup/ingest-worker.ts"],
    // Most of the suite waits on PostgreSQL, HTTP and timers: three files at a time on two cores
    // (vitest would run one: cores − 1). Four measured no faster in CI (803 s against 788 s): the
    // cores are the limit.
    maxWorkers: 3,
    // Each file used to load the whole source graph afresh (~430 s of CI's import time over 167
    // files); sharing it per worker took the suite from 856 to 669 s. Every test builds its own
    // instance and container, and the few env stubs are undone, so nothing leaks between files.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "pglite",
          include: [...integration, ...adapters, ...(postgres ? [] : compat)],
          env: { TEST_DATABASE_URL: "" },
        },
      },
      ...(postgres
        ? [{ extends: true as const, test: { name: "postgres", include: [...integration, ...compat] } }]
        : []),
    ],
  },
});
