import { relative } from "node:path";
import { fileURLToPath } from "node:url";

// This repository only: `faultline` is this repository's build (FAULTLINE_DIST, else ../../dist).
// In your app, `npm install faultline` and leave `turbopack` out.
const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
const dist = relative(here, process.env.FAULTLINE_DIST ?? `${root}/dist`);

/** @type {import("next").NextConfig} */
const nextConfig = {
  // PGlite loads its WebAssembly and data files from its own package directory: never bundle it.
  serverExternalPackages: ["@electric-sql/pglite"],
  // Sentry's API paths end in "/": without this, Next answers them with a 308 that SDKs don't follow.
  skipTrailingSlashRedirect: true,
  turbopack: {
    root,
    resolveAlias: { faultline: `${dist}/index.js`, "faultline/next": `${dist}/next.js`, "faultline/ui": `${dist}/ui.js` },
  },
};

export default nextConfig;
