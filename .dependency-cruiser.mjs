/**
 * Import cycles, checked by `npm run lint` (`depcruise`): dependency-cruiser reads type-only imports
 * too (`tsPreCompilationDeps`), which ESLint's cycle rules skip — a cycle through types still ties
 * the modules' declarations together. The plugin boundaries are checked by ESLint
 * (eslint.config.js, docs/plugins.md "Boundaries").
 *
 * @type {import("dependency-cruiser").IConfiguration}
 */
export default {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "A module reaches itself through its imports (type-only imports count): move what both sides need to a module of its own.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
  },
};
