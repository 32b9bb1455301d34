import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Generated } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createFaultline, defineEndpoint, definePlugin, registerValue, tokens } from "../../src/index.js";
import { runCli } from "../../src/cli/run.js";
import { createTestInstance, pickBackend } from "../../src/testing/index.js";
import { seedOrganization } from "../helpers/seed.js";
import { bearer } from "../helpers/server.js";
import { silentLogger } from "../../src/logging/logger.js";
import { firstPartyMigrationNames } from "../helpers/migrations.js";

/** A host plugin using every extension point a host needs. */
function auditPlugin(log: string[]) {
  const NOTES = Symbol("audit.notes");
  return definePlugin({
    id: "acme-audit",
    dependencies: ["installations"],
    register: (container) => registerValue(container, NOTES, log),
    migrations: [
      {
        name: "0001_audit",
        statements: (s) => [`CREATE TABLE ${s}.acme_audit (id serial PRIMARY KEY, note text NOT NULL)`],
      },
    ],
    endpoints: [
      defineEndpoint({
        method: "POST",
        path: "/api/0/organizations/{organization_id_or_slug}/acme-audit/",
        operationId: "acmeAudit.create",
        scopes: ["org:read"],
        body: z.object({ note: z.string().min(1) }),
        handler: async ({ body, organization, container }) => {
          // A plugin's own tables join the typed Database through Kysely's withTables.
          const db = container.resolve(tokens.Db).withTables<{ acme_audit: { id: Generated<number>; note: string } }>();
          await db
            .insertInto("acme_audit")
            .values({ note: `${organization.slug}:${body.note}` })
            .execute();
          return { status: 201, body: { ok: true } };
        },
      }),
    ],
    hooks: {
      before: (ctx) => void log.push(`before ${ctx.endpoint.operationId}`),
      after: (_ctx, response) => {
        response.headers.set("X-Audited", "1");
      },
    },
    on: {
      "installation.created": (event) => void log.push(`installed ${event.payload.app.slug} by ${event.actor.type}`),
    },
    api: (container) => ({ audit: { notes: () => container.resolve<string[]>(NOTES) } }),
  });
}

describe("host plugins", () => {
  it(
    "adds endpoints, hooks, a migration of its own, event subscriptions and an API namespace",
    { timeout: 120_000 },
    async () => {
      const log: string[] = [];
      const instance = await createTestInstance({ plugins: [auditPlugin(log)], announce: false });
      try {
        const { faultline } = instance;
        const seeded = await seedOrganization(faultline, "acme");
        await faultline.api.apps.create({ organization: "acme", name: "Tool", slug: "tool", isInternal: true });
        const response = await faultline.handler(
          new Request("http://x/api/0/organizations/acme/acme-audit/", {
            method: "POST",
            headers: { ...bearer(seeded.orgReadToken), "content-type": "application/json" },
            body: JSON.stringify({ note: "hello" }),
          }),
        );
        expect(response.status).toBe(201);
        expect(response.headers.get("x-audited")).toBe("1");
        expect(log).toEqual(["installed tool by application", "before acmeAudit.create"]);
        expect(faultline.api.audit).toBeDefined();
        expect(await faultline.api.audit.notes()).toBe(log);
        const invalid = await faultline.handler(
          new Request("http://x/api/0/organizations/acme/acme-audit/", {
            method: "POST",
            headers: bearer(seeded.orgReadToken),
            body: "{}",
          }),
        );
        expect(invalid.status).toBe(400);
        const migrated = await faultline.migrate();
        expect(migrated.applied).toEqual([]);
      } finally {
        await instance.close();
      }
    },
  );
});

describe("lifecycle", () => {
  it("initialises lazily, answers 503 after close(), and close() is idempotent", async () => {
    const instance = await createTestInstance({ announce: false });
    const { faultline } = instance;
    await faultline.ready();
    await instance.close();
    const response = await faultline.handler(new Request("http://x/api/0/api-tokens/"));
    expect(response.status).toBe(503);
    await faultline.close();
  });

  // Generous timeouts (here, in "host plugins" and in the CLI test): a PGlite start takes seconds, many more on a busy machine.
  it("persists embedded data in a data directory across instances", { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "faultline-data-"));
    try {
      const first = createFaultline({ database: { dataDir: dir }, logger: silentLogger });
      await first.api.organizations.create({ slug: "kept" });
      await first.close();
      const second = createFaultline({ database: { dataDir: dir }, logger: silentLogger });
      expect((await second.api.organizations.get("kept"))?.slug).toBe("kept");
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("faultline migrate CLI", () => {
  it("applies migrations, then reports nothing to do", { timeout: 120_000 }, async () => {
    const { backend, url } = await pickBackend();
    const dir = await mkdtemp(join(tmpdir(), "faultline-cli-"));
    const schema = `cli_${Date.now()}`;
    const target =
      backend === "pglite" || !url ? ["--data-dir", dir, "--create"] : ["--database-url", url, "--schema", schema];
    const run = async (args: string[]) => {
      let out = "";
      const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (out += t) });
      return { code, out };
    };
    try {
      expect(await run(["migrate", ...target])).toEqual({
        code: 0,
        out: firstPartyMigrationNames.map((name) => `applied ${name}\n`).join(""),
      });
      expect(await run(["migrate", ...target])).toEqual({ code: 0, out: "faultline: already up to date\n" });
      expect((await run(["migrate"])).code).toBe(2);
    } finally {
      if (url && backend !== "pglite") {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
      await rm(dir, { recursive: true, force: true });
    }
  });
});
