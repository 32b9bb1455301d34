// Vitest globalSetup: the source faultline/ui serves src/ui/ui-assets/ (gitignored), built here
// with esbuild when the client sources changed since the last build (~0.1 s; nothing otherwise).
// @ts-expect-error: plain JavaScript build script without type declarations
import { buildDashboard } from "../../scripts/build-ui.mjs";

export default async function setup(): Promise<void> {
  await (buildDashboard as (outDir: string, options: { ifStale: boolean }) => Promise<string>)("src/ui", {
    ifStale: true,
  });
}
