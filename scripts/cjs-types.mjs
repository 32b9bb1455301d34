// Part of `npm run build`, after `tsc -p tsconfig.build.json`: the declarations of the CommonJS
// build. Every dist/types/**/*.d.ts gets a .d.cts twin whose relative specifiers (imports, `import()`
// types, `declare module` augmentations) name .cjs files. TypeScript reads a .d.ts in a
// `"type": "module"` package as ESM, so `require("faultline")` typed with the .d.ts would be
// "masquerading as ESM" (@arethetypeswrong/cli); the twins keep the file-by-file layout, so every
// plugin's DomainEventMap augmentation applies in the CommonJS graph too.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const typesDir = resolve(root, process.argv[2] ?? "dist/types");
const RELATIVE_JS = /((?:from|import\(|import|declare module)\s*["'])(\.{1,2}\/[^"']*?)\.js(["'])/g;

let count = 0;
for (const entry of await readdir(typesDir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const file = join(entry.parentPath, entry.name);
  const text = await readFile(file, "utf8");
  await writeFile(file.replace(/\.d\.ts$/, ".d.cts"), text.replace(RELATIVE_JS, "$1$2.cjs$3"));
  count++;
}
process.stderr.write(`faultline: ${count} CommonJS declarations (.d.cts) written\n`);
