import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "**/.next/", ".faultline/", "src/ui/ui-assets/", "examples/demo/assets/*.min.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node 20's globals, for the plain-JavaScript examples and scripts.
    languageOptions: {
      globals: Object.fromEntries(
        ["process", "console", "URL", "URLSearchParams", "Buffer", "fetch", "Request", "Response", "Headers", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance", "crypto", "AbortSignal", "AbortController", "TextEncoder", "TextDecoder", "ReadableStream", "structuredClone", "FormData", "Blob"].map((name) => [name, "readonly"]),
      ),
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
);
