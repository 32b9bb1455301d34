// `npm run check:package` (CI, after the build): lints what `npm pack` ships from the current dist/.
// publint checks package.json against the files; @arethetypeswrong/cli resolves every subpath
// export's types and JavaScript as node10, node16 (from CJS and from ESM) and bundlers would.
// The tarball is packed with --ignore-scripts: `prepack` would rebuild dist/ a second time.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(root, "node_modules", ".bin", name);
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: "inherit" });

run(bin("publint"), ["--strict"]);
const out = mkdtempSync(join(tmpdir(), "faultline-check-package-"));
try {
  run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", out]);
  const tarball = readdirSync(out).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no tarball");
  run(bin("attw"), [join(out, tarball), "--format", "table-flipped"]);
} finally {
  rmSync(out, { recursive: true, force: true });
}
