import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, "../..");
const SUBPATHS = ["faultline", "faultline/express", "faultline/fastify", "faultline/next", "faultline/node", "faultline/testing", "faultline/verify"];

/**
 * What a user gets from `npm install faultline`: the packed tarball installed into a fresh
 * project (from the npm cache that `npm ci` filled — no network needed), every subpath export
 * imported at run time and type-checked with NodeNext resolution.
 */
describe("the packed tarball in a fresh project", () => {
  let project = "";

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), "faultline-packed-"));
    await run("npm", ["pack", "--silent", "--pack-destination", project], { cwd: repo });
    const tarball = (await readdir(project)).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new Error("npm pack wrote no tarball");
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "fresh-host", private: true, type: "module" }));
    // The adapters' frameworks are optional peers: a host using them installs them itself.
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", `./${tarball}`, "express", "@types/express", "fastify", "fastify-plugin", "@types/node@20"],
      { cwd: project, maxBuffer: 16 * 2 ** 20 },
    );
  }, 240_000);

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  it("resolves every subpath export at run time", async () => {
    const script = SUBPATHS.map((path, i) => `import * as m${i} from "${path}"; if (Object.keys(m${i}).length === 0) throw new Error("${path} is empty");`).join("\n");
    await writeFile(join(project, "imports.mjs"), `${script}\nconsole.log("ok");\n`);
    const { stdout } = await run(process.execPath, ["imports.mjs"], { cwd: project });
    expect(stdout.trim()).toBe("ok");
  });

  it("ships types for every subpath export (NodeNext resolution)", async () => {
    await writeFile(
      join(project, "check.ts"),
      [
        `import { createFaultline, definePlugin, SCOPES, type Faultline } from "faultline";`,
        `import { toExpressHandler } from "faultline/express";`,
        `import { toFastifyPlugin } from "faultline/fastify";`,
        `import { toNextJsHandler, getOrCreateFaultline } from "faultline/next";`,
        `import { toNodeHandler } from "faultline/node";`,
        `import { createTestInstance } from "faultline/testing";`,
        `import { verifySignature, verifyStandardWebhook } from "faultline/verify";`,
        `const faultline: Faultline = getOrCreateFaultline("main", () => createFaultline());`,
        `const scopes: readonly string[] = SCOPES;`,
        `const ok: boolean = verifySignature("{}", "00", "secret") || verifyStandardWebhook("{}", {}, "whsec_x");`,
        `void [toExpressHandler(faultline), toNextJsHandler(faultline).GET, toFastifyPlugin(faultline), toNodeHandler(faultline), createTestInstance, scopes, ok];`,
        // A host plugin sees the first-party domain events with their payloads.
        `const audit = definePlugin({ id: "audit", on: { "issue.created": async (event) => { const title: string = event.payload.issue.title; void title; } } });`,
        `void createFaultline({ plugins: [audit] });`,
        // Wrong uses must fail to compile, or the check proves nothing.
        `// @ts-expect-error -- verifySignature takes a secret string`,
        `verifySignature("{}", "00", 42);`,
        `// @ts-expect-error -- not a domain event`,
        `definePlugin({ id: "typo", on: { "issue.creatd": async () => {} } });`,
      ].join("\n"),
    );
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] }, files: ["check.ts"] }),
    );
    const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", "."], { cwd: project }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(result.stdout).toBe("");
    expect("failed" in result).toBe(false);
  });
});
