import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The architecture rules `npm run lint` enforces (docs/plugins.md, "Boundaries"), run through the
 * project's own configurations on deliberate offenders: a rule that silently stopped matching
 * (a moved folder, a renamed option) would otherwise let every violation through.
 */
const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const eslint = new ESLint({ cwd: root });

/** The boundary errors ESLint reports for `code` placed at `path` (the file need not exist; its imports must). */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === "boundaries/dependencies")
    .map((message) => message.message);
}

describe("plugin boundaries (ESLint)", () => {
  it("refuses a plugin's import of another plugin's internal file, type-only, re-exported or as an import() type", async () => {
    const offenders = [
      `import { IssueRepository } from "../issues/repository.js";\nexport const repository = IssueRepository;`,
      `import type { IssueRepository } from "../issues/repository.js";\nexport type Repository = IssueRepository;`,
      `export { IssueRepository } from "../issues/repository.js";`,
      `export type Repository = import("../issues/repository.js").IssueRepository;`,
    ];
    for (const code of offenders) {
      const errors = await boundaryErrors("src/plugins/alerts/offender.ts", code);
      expect(errors, code).toEqual([
        expect.stringContaining("src/plugins/alerts/offender.ts imports src/plugins/issues/repository.ts"),
      ]);
    }
  });

  it("lets a plugin import another plugin's index.ts and tokens.ts, the core, and its own files", async () => {
    const code = [
      `import { IssueRepositoryToken } from "../issues/index.js";`,
      `import type { IssueLookup } from "../issues/tokens.js";`,
      `import { ApiError } from "../../http/errors.js";`,
      `import { IssueRuleRepository } from "./issue-rules/repository.js";`,
      `export const used: [unknown, IssueLookup | null, unknown, unknown] = [IssueRepositoryToken, null, ApiError, IssueRuleRepository];`,
    ].join("\n");
    expect(await boundaryErrors("src/plugins/alerts/offender.ts", code)).toEqual([]);
  });

  it("refuses the core's import of a plugin, even of its public entry", async () => {
    const code = `import { issuesPlugin } from "../plugins/issues/index.js";\nexport const plugin = issuesPlugin;`;
    expect(await boundaryErrors("src/http/offender.ts", code)).toEqual([
      expect.stringContaining("src/http/offender.ts imports src/plugins/issues/index.ts"),
    ]);
  });

  it("lets the composition roots import plugins' public entries only", async () => {
    const entry = `import { issuesPlugin } from "./issues/index.js";\nexport const plugins = [issuesPlugin];`;
    expect(await boundaryErrors("src/plugins/index.ts", entry)).toEqual([]);
    const internal = `import "./plugins/issues/domain-events.js";`;
    expect(await boundaryErrors("src/index.ts", internal)).toEqual([
      expect.stringContaining("src/index.ts imports src/plugins/issues/domain-events.ts"),
    ]);
  });

  it("makes no exception for the OpenAPI plugin (the api types come from the endpoint declarations)", async () => {
    const code = `import type { listIssues } from "../issues/list/routes.js";\nexport type Listed = typeof listIssues;`;
    expect(await boundaryErrors("src/plugins/openapi/api.ts", code)).toHaveLength(1);
  });
});

describe("import cycles (dependency-cruiser)", () => {
  const dir = mkdtempSync(join(tmpdir(), "faultline-cycle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds a cycle made of type-only imports", async () => {
    writeFileSync(join(dir, "a.ts"), `import type { B } from "./b.js";\nexport interface A { b: B }\n`);
    writeFileSync(join(dir, "b.ts"), `import type { A } from "./a.js";\nexport interface B { a?: A }\n`);
    const options = await extractDepcruiseOptions(join(root, ".dependency-cruiser.mjs"));
    const { output } = await cruise([dir], options, undefined, {
      tsConfig: extractTSConfig(join(root, "tsconfig.json")),
    });
    if (typeof output === "string") throw new Error("expected the cruise result, got a report");
    expect(output.summary.violations.map((violation) => violation.rule.name)).toEqual(["no-circular"]);
  });
});
