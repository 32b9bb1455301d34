// This repository only: its root `tsc` checks this example against the sources (there is no
// installed `faultline` package here, and `dist/` may not be built yet). Next uses the `paths` of
// ./tsconfig.json instead. In your app, `npm install faultline` replaces both.
declare module "faultline" {
  export const createFaultline: typeof import("../../src/index.js").createFaultline;
}
declare module "faultline/next" {
  export const toNextJsHandler: typeof import("../../adapters/next/index.js").toNextJsHandler;
  export const getOrCreateFaultline: typeof import("../../adapters/next/index.js").getOrCreateFaultline;
}
