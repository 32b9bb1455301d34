// This repository only: its root `tsc` type-checks this example against the sources (no installed
// `faultline` package here, and dist/ may not be built yet). In your app, `npm install faultline`.
/* eslint-disable @typescript-eslint/consistent-type-imports -- an ambient module cannot import a relative path */
declare module "faultline" {
  export const createFaultline: typeof import("../../src/index.js").createFaultline;
  export const SCOPES: typeof import("../../src/index.js").SCOPES;
}
declare module "faultline/next" {
  export const toNextJsHandler: typeof import("../../adapters/next/index.js").toNextJsHandler;
  export const getOrCreateFaultline: typeof import("../../adapters/next/index.js").getOrCreateFaultline;
}
declare module "faultline/ui" {
  export const createDashboard: typeof import("../../src/ui/index.js").createDashboard;
}
