import js from "@eslint/js";
import boundaries from "eslint-plugin-boundaries";
import tseslint from "typescript-eslint";

/**
 * What a plugin shows other plugins: its entry (the plugin, and what it exports on purpose) and
 * its contracts (tokens, port types). Every other file in a plugin's folder is its own.
 */
const PLUGIN_PUBLIC_FILES = ["index.ts", "tokens.ts"];

/** The composition roots, which put the plugins together: the package entry and the first-party list. */
const COMPOSITION_ROOTS = ["index.ts", "plugins/index.ts"];

/**
 * The plugin boundaries (docs/plugins.md, "Boundaries"): the core (src/ outside src/plugins/)
 * imports no plugin but through its composition roots, and a plugin imports the core, its own
 * files and other plugins' public files. Import cycles are checked by dependency-cruiser
 * (.dependency-cruiser.mjs), which reads type-only imports too.
 */
const pluginBoundaries = {
  files: ["src/**/*.ts"],
  plugins: { boundaries },
  settings: {
    // Resolves the `./x.js` specifiers to the `.ts` files they name.
    "import/resolver": { typescript: { project: "tsconfig.json" } },
    // Re-exports and `import("…")` types cross a boundary as much as imports do.
    "boundaries/dependency-nodes": ["import", "export", "dynamic-import"],
    "boundaries/additional-dependency-nodes": [
      { selector: "TSImportType > Literal", kind: "type", name: "import-type" },
    ],
    "boundaries/elements": [
      { type: "plugin", pattern: "src/plugins/*", capture: ["pluginId"], partialMatch: false },
      { type: "core", pattern: "src", partialMatch: false },
    ],
  },
  rules: {
    // Imports within one element (a plugin's own files, the core's) are not checked.
    "boundaries/dependencies": [
      "error",
      {
        default: "disallow",
        message:
          '{{ from.element.filePath }} imports {{ to.element.filePath }}: the core imports no plugin, and a plugin imports another plugin\'s index.ts or tokens.ts only (docs/plugins.md, "Boundaries")',
        policies: [
          { from: { element: { type: "plugin" } }, allow: { to: { element: { type: "core" } } } },
          {
            from: { element: { type: "plugin" } },
            allow: { to: { element: { type: "plugin", fileInternalPath: PLUGIN_PUBLIC_FILES } } },
          },
          {
            from: { element: { type: "core", fileInternalPath: COMPOSITION_ROOTS } },
            allow: { to: { element: { type: "plugin", fileInternalPath: PLUGIN_PUBLIC_FILES } } },
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      "dist/",
      "node_modules/",
      "coverage/",
      "**/.next/",
      ".faultline/",
      "src/ui/ui-assets/",
      "src/plugins/ingest/isolation/ingest-worker.js",
      "examples/demo/assets/*.min.js",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node 20's globals, for the plain-JavaScript examples and scripts.
    languageOptions: {
      globals: Object.fromEntries(
        [
          "process",
          "console",
          "URL",
          "URLSearchParams",
          "Buffer",
          "fetch",
          "Request",
          "Response",
          "Headers",
          "setTimeout",
          "clearTimeout",
          "setInterval",
          "clearInterval",
          "performance",
          "crypto",
          "AbortSignal",
          "AbortController",
          "TextEncoder",
          "TextDecoder",
          "ReadableStream",
          "structuredClone",
          "FormData",
          "Blob",
        ].map((name) => [name, "readonly"]),
      ),
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  pluginBoundaries,
  {
    // Small, testable pieces (ARCHITECTURE.md): a function that outgrows a screen is split into named
    // steps. Migrations are lists of SQL statements, not logic: exempt.
    files: ["src/**/*.ts", "adapters/**/*.ts"],
    ignores: ["src/db/migrations/*.ts", "src/plugins/*/migrations.ts"],
    rules: { "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }] },
  },
);
