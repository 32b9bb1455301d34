import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, type Message } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * The embedding guides' snippets are complete (< 30 lines) and match the example hosts: every
 * import, mount and host-route line of a snippet appears in the example, verbatim.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const snippet = (doc: string) => /```(?:js|ts)\n([\s\S]*?)```/.exec(read(doc))?.[1] ?? "";

const guides = [
  { doc: "docs/embedding-express.md", example: ["examples/express-host/server.mjs"] },
  { doc: "docs/embedding-fastify.md", example: ["examples/fastify-host/server.mjs"] },
  { doc: "docs/embedding-next.md", example: ["examples/next-host/app/api/faultline/[...path]/route.ts", "examples/next-host/lib/faultline.ts", "examples/next-host/next.config.mjs"] },
];

describe("embedding guides", () => {
  for (const { doc, example } of guides) {
    it(`${doc} is a complete snippet under 30 lines that matches ${example[0]}`, () => {
      const code = snippet(doc);
      const lines = code.trimEnd().split("\n");
      expect(lines.length).toBeLessThan(30);
      const source = example.map(read).join("\n").replace(/\s+/g, " ");
      const significant = lines
        .map((line) => line.replace(/\s+\/\/.*$/, "").trim())
        .filter((line) => /^(import |app\.(use|get|post|register)|export const (runtime|dynamic|\{)|serverExternalPackages|skipTrailingSlashRedirect)/.test(line));
      expect(significant.length).toBeGreaterThan(2);
      for (const line of significant) {
        const imported = /^import (?:\{ (.+) \}|(\w+)) from "(.+)";$/.exec(line);
        if (!imported) {
          expect(source, line).toContain(line.replace(/\s+/g, " "));
          continue;
        }
        // An import matches when the example imports each of those names from the same module.
        const names = (imported[1] ?? imported[2] ?? "").split(",").map((name) => name.trim());
        const fromExample = [...source.matchAll(new RegExp(`import (?:\\{ ([^}]+) \\}|(\\w+)) from "${imported[3]}"`, "g"))].flatMap((m) =>
          (m[1] ?? m[2] ?? "").split(",").map((name) => name.trim()),
        );
        for (const name of names) expect(fromExample, `${name} from ${imported[3]}`).toContain(name);
      }
    });
  }
});

describe("docs/dashboard.md", () => {
  it("the Next.js route snippet is examples/next-host's dashboard route, line for line", () => {
    const file = "examples/next-host/app/admin/errors/[[...path]]/route.ts";
    const block = new RegExp(`\`\`\`ts\n// ${file.slice("examples/next-host/".length).replace(/[[\].]/g, "\\$&")}\n([\\s\\S]*?)\`\`\``).exec(read("docs/dashboard.md"))?.[1] ?? "";
    const code = (text: string) => text.split("\n").map((line) => line.trim()).filter((line) => line && !line.startsWith("//"));
    expect(code(block).length).toBeGreaterThan(3);
    expect(code(block)).toEqual(code(read(file)));
  });
});

describe("runtimes (docs/http.md: Node.js only, no edge runtimes)", () => {
  it("the core cannot be bundled without Node's built-ins: sockets for pg, node:zlib for ingest, the file system for PGlite", async () => {
    const failure = await build({ entryPoints: [fileURLToPath(new URL("../../src/index.ts", import.meta.url))], bundle: true, write: false, platform: "browser", conditions: ["worker", "edge-light"], logLevel: "silent" }).then(
      () => undefined,
      (error: { errors: Message[] }) => error.errors.map((message) => message.text).join("\n"),
    );
    expect(failure).toBeDefined();
    for (const builtin of ["net", "node:zlib", "node:fs"]) expect(failure).toContain(`"${builtin}"`);
  }, 60_000);
});

describe("README", () => {
  it("links every page under docs/", () => {
    const readme = read("README.md");
    const pages = readdirSync(new URL("../../docs/", import.meta.url));
    expect(pages.filter((page) => !readme.includes(`(docs/${page})`))).toEqual([]);
  });
});
