import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.js";
import { randomHex } from "../../src/crypto/secrets.js";
import { createFaultline } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { pickBackend } from "../../src/testing/index.js";
import { firstPartyMigrationNames } from "../helpers/migrations.js";

/** Runs the command line in-process, collecting stdout and stderr apart. */
async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe("the faultline command line (#17)", () => {
  // PGlite: a data directory (each command opens and closes it); PostgreSQL: a schema of the test database.
  let target: string[];
  let url: string | undefined;
  let dir: string;
  const schema = `cli_${randomHex(4)}`;

  beforeAll(async () => {
    const picked = await pickBackend();
    dir = await mkdtemp(join(tmpdir(), "faultline-cli-"));
    url = picked.backend === "pglite" ? undefined : picked.url;
    // --create: the CLI opens only an existing embedded database unless told to start one (#27).
    target = [...(url ? ["--database-url", url] : ["--data-dir", dir, "--create"]), "--schema", schema];
  });
  afterAll(async () => {
    if (url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
    await rm(dir, { recursive: true, force: true });
  });

  it("prints its version, its help, and refuses what it does not know with exit code 2", async () => {
    const { version } = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(await cli(["--version"])).toEqual({ code: 0, out: `${version}\n`, err: "" });
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["migrate [status]", "bootstrap", "worker"]) expect(help.out).toContain(`  ${command}`);
    expect((await cli(["migrate", "--help"])).out).toMatch(/^Usage: faultline migrate \[status\]/);
    const unknown = await cli(["migrat"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^faultline: unknown command "migrat"\n\nUsage: faultline <command>/);
    const badFlag = await cli(["migrate", "--databse-url", "x"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.err).toMatch(/^faultline migrate: Unknown option '--databse-url'/);
    expect((await cli(["migrate", "--database-url", "postgres://x/y", "--data-dir", dir])).err).toMatch(
      /^faultline migrate: give --database-url or --data-dir, not both/,
    );
    expect((await cli(["worker", "--data-dir", dir])).err).toMatch(/^faultline worker: Unknown option '--data-dir'/);
  });

  it("migrate status lists pending then applied migrations; migrate applies them", { timeout: 180_000 }, async () => {
    const names = firstPartyMigrationNames;
    expect(await cli(["migrate", "status", ...target])).toEqual({
      code: 1,
      out: `${names.map((name) => `pending  ${name}\n`).join("")}faultline: ${names.length} pending (run \`faultline migrate\`)\n`,
      err: "",
    });
    expect(await cli(["migrate", ...target])).toEqual({
      code: 0,
      out: names.map((name) => `applied ${name}\n`).join(""),
      err: "",
    });
    expect(await cli(["migrate", "status", ...target])).toEqual({
      code: 0,
      out: `${names.map((name) => `applied  ${name}\n`).join("")}faultline: up to date\n`,
      err: "",
    });
    expect((await cli(["migrate", "statuss", ...target])).code).toBe(2);
  });

  it(
    "bootstrap creates an organization, owner, project and token and prints the DSN; run again it creates nothing",
    { timeout: 180_000 },
    async () => {
      const publicUrl = "https://errors.example.com/faultline";
      const first = await cli([
        "bootstrap",
        ...target,
        "--public-url",
        publicUrl,
        "--organization",
        "acme",
        "--project",
        "api",
        "--platform",
        "node",
        "--email",
        "ops@acme.test",
      ]);
      expect(first.err).toBe("");
      expect(first.code).toBe(0);
      const dsn = /^DSN: {3}(https:\/\/[0-9a-f]{32}@errors\.example\.com\/faultline\/\d+)$/m.exec(first.out)?.[1];
      const token = /^Token: (\S+)$/m.exec(first.out)?.[1];
      expect(first.out).toMatch(/^faultline: created organization "acme", owner "admin", project "acme\/api"\n/);
      expect(dsn).toBeDefined();
      expect(token).toBeDefined();
      // What an authenticate hook needs to sign someone in as this owner (the dashboard has no login of its own).
      const userId = /^Owner: admin, Faultline user id (\d+)$/m.exec(first.out)?.[1];
      expect(userId).toBeDefined();
      expect(first.out).toContain(
        `       authenticate hook: return { userId: ${userId}, scopes: [...SCOPES] } when your app's session is this person's (docs/dashboard.md#signing-in)\n`,
      );

      const again = await cli([
        "bootstrap",
        ...target,
        "--public-url",
        publicUrl,
        "--organization",
        "acme",
        "--project",
        "api",
      ]);
      expect(again).toEqual({
        code: 0,
        out: `faultline: organization "acme" already exists; nothing created\nDSN:   ${dsn}\nOwner: admin, Faultline user id ${userId}\n       authenticate hook: return { userId: ${userId}, scopes: [...SCOPES] } when your app's session is this person's (docs/dashboard.md#signing-in)\nToken: none created (tokens are shown only when created; --new-token creates another)\n`,
        err: "",
      });
      const another = await cli(["bootstrap", ...target, "--organization", "acme", "--project", "api", "--new-token"]);
      expect(another.out).toMatch(
        /^DSN: {3}\(give --public-url to print it\) public key [0-9a-f]{32}, project id \d+$/m,
      );
      const second = /^Token: (\S+)$/m.exec(another.out)?.[1];
      expect(second).toBeDefined();
      expect(second).not.toBe(token);

      // What was printed works: the token reads the organization, the DSN's key sends to the project.
      const faultline = createFaultline({
        database: url ?? { dataDir: dir },
        schema,
        logger: silentLogger,
        worker: false,
      });
      try {
        for (const bearer of [token, second]) {
          const response = await faultline.handler(
            new Request("http://x/api/0/organizations/acme/", { headers: { authorization: `Bearer ${bearer}` } }),
          );
          expect(response.status).toBe(200);
          expect(await response.json()).toMatchObject({ slug: "acme" });
        }
        const owner = await faultline.api.users.get("admin");
        expect(owner?.email).toBe("ops@acme.test");
        expect(owner?.id).toBe(userId);
        const project = await faultline.api.projects.get("acme", "api");
        expect(project?.platform).toBe("node");
        const key = new URL(dsn as string).username;
        const sent = await faultline.handler(
          new Request(`http://x/api/${project?.id}/envelope/?sentry_key=${key}`, {
            method: "POST",
            body: '{}\n{"type":"event"}\n{"message":"hello"}',
          }),
        );
        expect(sent.status).toBe(200);
      } finally {
        await faultline.close();
      }
      // The printed id is the one a hook returns: a session mapped to it reads the organization.
      // (After the instance above is closed: one process opens an embedded data directory at a time.)
      const viaHook = createFaultline({
        database: url ?? { dataDir: dir },
        schema,
        logger: silentLogger,
        worker: false,
        authenticate: () => ({ userId: Number(userId), scopes: ["org:read"] }),
      });
      try {
        expect((await viaHook.handler(new Request("http://x/api/0/organizations/acme/"))).status).toBe(200);
      } finally {
        await viaHook.close();
      }
    },
  );
});
