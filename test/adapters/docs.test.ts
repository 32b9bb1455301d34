import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, type Message } from "esbuild";
import { describe, expect, it } from "vitest";
import { codeBlocks } from "../helpers/markdown.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/**
 * The embedding guides' code blocks are run as written by test/dist/guides.test.ts (fresh apps,
 * the packed tarball); here, in the source run, the cheap part: the blocks it extracts are there,
 * each once, and each file stays short enough to read.
 */
const guides = [
  { doc: "docs/embedding-express.md", files: ["server.mjs", "server.cjs", "send-error.mjs"] },
  { doc: "docs/embedding-fastify.md", files: ["server.mjs", "send-error.mjs"] },
  { doc: "docs/embedding-hono.md", files: ["server.mjs", "send-error.mjs"] },
  {
    doc: "docs/embedding-next.md",
    files: [
      "lib/faultline.ts",
      "instrumentation.ts",
      "app/api/faultline/[...path]/route.ts",
      "app/admin/errors/[[...path]]/route.ts",
      "app/login/route.ts",
      "next.config.mjs",
      "send-error.mjs",
    ],
  },
];

describe("embedding guides", () => {
  for (const { doc, files } of guides) {
    it(`${doc} has one block per file of its app, each under 60 lines, and the two curl calls of its loop`, () => {
      const blocks = codeBlocks(read(doc));
      for (const file of files) {
        const named = blocks.filter((block) => block.title === file);
        expect(named, file).toHaveLength(1);
        expect(named[0]?.code.trimEnd().split("\n").length, file).toBeLessThan(60);
      }
      const curls = blocks
        .filter((block) => block.lang === "sh")
        .flatMap((block) => block.code.split("\n").filter((line) => line.startsWith("curl ")));
      expect(curls.map((line) => /\/api\/0\/\S+/.exec(line)?.[0])).toEqual([
        "/api/0/projects/acme/web/keys/",
        "/api/0/organizations/acme/issues/",
      ]);
    });
  }

  it("the Express guide's CommonJS server.cjs is its server.mjs with require() (the same code up to starting the server)", () => {
    const blocks = codeBlocks(read("docs/embedding-express.md"));
    const body = (title: string, stop: RegExp) => {
      const lines = blocks.find((block) => block.title === title)?.code.split("\n") ?? [];
      const end = lines.findIndex((line) => stop.test(line));
      return lines
        .slice(0, end)
        .filter((line) => line.trim() && !line.startsWith("//") && !/^import |require\("/.test(line));
    };
    const esm = body("server.mjs", /^const owner = await provision\(\)/);
    expect(esm.length).toBeGreaterThan(20);
    expect(body("server.cjs", /^provision\(\)\.then/)).toEqual(esm);
  });

  it("codeBlocks reads titled fences and fences indented in list items", () => {
    const markdown =
      '# x\n\n```js title="a.mjs"\nconst a = 1;\n```\n\n1. step\n\n   ```sh\n   curl http://localhost:3000/x\n   ```\n';
    expect(codeBlocks(markdown)).toEqual([
      { lang: "js", title: "a.mjs", code: "const a = 1;\n" },
      { lang: "sh", title: undefined, code: "curl http://localhost:3000/x\n" },
    ]);
  });
});

describe("docs/dashboard.md", () => {
  it("the Next.js route snippet is examples/next-host's dashboard route, line for line", () => {
    const file = "examples/next-host/app/admin/errors/[[...path]]/route.ts";
    const block =
      new RegExp(
        `\`\`\`ts\n// ${file.slice("examples/next-host/".length).replace(/[[\].]/g, "\\$&")}\n([\\s\\S]*?)\`\`\``,
      ).exec(read("docs/dashboard.md"))?.[1] ?? "";
    const code = (text: string) =>
      text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith("//"));
    expect(code(block).length).toBeGreaterThan(3);
    expect(code(block)).toEqual(code(read(file)));
  });
});

describe("runtimes (docs/http.md: Node.js only, no edge runtimes)", () => {
  it("the core cannot be bundled without Node's built-ins: sockets for pg, node:zlib for ingest, the file system for PGlite", async () => {
    const failure = await build({
      entryPoints: [fileURLToPath(new URL("../../src/index.ts", import.meta.url))],
      bundle: true,
      write: false,
      platform: "browser",
      conditions: ["worker", "edge-light"],
      logLevel: "silent",
    }).then(
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
