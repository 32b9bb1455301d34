import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFaultline, definePlugin, type Logger, MigrationsPendingError } from "../../src/index.js";
import { randomHex } from "../../src/crypto/secrets.js";
import { openRawDatabase, type RawDatabase } from "../helpers/database.js";
import { silentLogger } from "../../src/logging/logger.js";
import { coreLedgerMigrations, firstPartyMigrationNames } from "../helpers/migrations.js";

describe("storage", () => {
  let raw: RawDatabase;
  const schema = `faultline_storage_${randomHex(4)}`;

  beforeAll(async () => {
    raw = await openRawDatabase();
  });
  afterAll(async () => {
    await raw.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await raw?.close();
  });

  it("keeps every table in its own schema and leaves a host's users/projects tables in public untouched", async () => {
    await raw.query("CREATE TABLE IF NOT EXISTS public.users (id serial PRIMARY KEY, login text)");
    await raw.query("CREATE TABLE IF NOT EXISTS public.projects (id serial PRIMARY KEY, title text)");
    const marker = `host-${randomHex(4)}`;
    await raw.query("INSERT INTO public.users (login) VALUES ($1)", [marker]);
    const before = await raw.query<{ n: number }>("SELECT count(*)::int AS n FROM public.users");

    const faultline = createFaultline({ database: raw.input, schema, logger: silentLogger });
    try {
      await faultline.api.organizations.create({ slug: "acme" });
      await faultline.api.users.create({ username: marker });
      await faultline.api.projects.create({ organization: "acme", slug: "web" });

      const tables = await raw.query<{ table_schema: string; table_name: string }>(
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name IN ('users', 'projects', 'organizations', 'faultline_migration') ORDER BY 1, 2",
      );
      const ours = tables.filter((t) => t.table_schema === schema).map((t) => t.table_name);
      expect(ours).toEqual(["faultline_migration", "organizations", "projects", "users"]);
      expect(tables.filter((t) => t.table_schema === "public").map((t) => t.table_name)).toEqual(["projects", "users"]);
      const after = await raw.query<{ n: number }>("SELECT count(*)::int AS n FROM public.users");
      expect(after).toEqual(before);
      const hostColumns = await raw.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'users' ORDER BY 1",
      );
      expect(hostColumns.map((c) => c.column_name)).toEqual(["id", "login"]);
    } finally {
      await faultline.close();
      await raw.query("DELETE FROM public.users WHERE login = $1", [marker]);
    }
  });

  it("runs migrations once: a second run applies nothing", async () => {
    // A schema of its own, migrated here: the test must not lean on another test having migrated `schema`.
    const onceSchema = `${schema}_once`;
    const first = createFaultline({
      database: raw.input,
      schema: onceSchema,
      autoMigrate: false,
      logger: silentLogger,
      worker: false,
    });
    // Another instance, as after a restart or in a second process.
    const second = createFaultline({
      database: raw.input,
      schema: onceSchema,
      autoMigrate: false,
      logger: silentLogger,
      worker: false,
    });
    try {
      expect(await first.migrate()).toEqual({ applied: [...firstPartyMigrationNames] });
      expect(await second.migrate()).toEqual({ applied: [] });
      expect(await first.migrate()).toEqual({ applied: [] });
      // The core's are recorded once each in faultline_migration (the releases plugin's in a table of its own).
      const rows = await raw.query<{ name: string }>(`SELECT name FROM ${onceSchema}.faultline_migration`);
      expect(rows.map((r) => r.name).sort()).toEqual(coreLedgerMigrations.map((m) => m.name).sort());
    } finally {
      await first.close();
      await second.close();
      await raw.query(`DROP SCHEMA IF EXISTS ${onceSchema} CASCADE`);
    }
  });

  it("does not disturb a host that runs Kysely's own Migrator in the same database", async () => {
    const hostSchema = `host_${randomHex(4)}`;
    const db =
      typeof raw.input === "string"
        ? new Kysely<unknown>({
            dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: raw.input, max: 1 }) }),
          })
        : new Kysely<unknown>({ dialect: new PGliteDialect(raw.input) });
    const hostMigrator = new Migrator({
      db,
      migrationTableSchema: hostSchema,
      provider: {
        getMigrations: async () => ({
          "001_widgets": {
            up: async (k) => void (await sql`CREATE TABLE ${sql.id(hostSchema, "widgets")} (id int)`.execute(k)),
          },
        }),
      },
    });
    // Kysely's Migrator finds its tables by introspecting the whole catalog: a schema another test
    // file drops meanwhile fails that read (src/db/migrator.ts retries the same for Faultline's own
    // runs). The host's migrator here is Kysely's, unchanged: the test retries it the same way.
    const migrateHost = async () => {
      for (let attempt = 1; ; attempt++) {
        const outcome = await hostMigrator.migrateToLatest();
        const code = (outcome.error as { code?: string } | undefined)?.code;
        if (attempt === 5 || !["42P01", "3F000", "42703"].includes(code ?? "")) return outcome;
      }
    };
    try {
      const first = await migrateHost();
      expect(first.error).toBeUndefined();
      expect(first.results?.map((r) => r.migrationName)).toEqual(["001_widgets"]);
      // Faultline migrating the same database after (and before) the host's migrator changes nothing of the host's.
      const faultline = createFaultline({ database: raw.input, schema, logger: silentLogger });
      await faultline.migrate();
      await faultline.close();
      const second = await migrateHost();
      expect(second.error).toBeUndefined();
      expect(second.results).toEqual([]);
      const hostRows = await raw.query<{ name: string }>(`SELECT name FROM ${hostSchema}.kysely_migration`);
      expect(hostRows.map((r) => r.name)).toEqual(["001_widgets"]);
    } finally {
      await raw.query(`DROP SCHEMA IF EXISTS ${hostSchema} CASCADE`);
      // The PGlite dialect's destroy() would close the shared PGlite, so only a pg-backed Kysely is destroyed.
      if (typeof raw.input === "string") await db.destroy();
    }
  });

  // Creating a second PGlite takes seconds, more on a busy machine.
  it("two instances on different databases do not see each other's data", { timeout: 120_000 }, async () => {
    const a = createFaultline({ database: raw.input, schema, logger: silentLogger });
    const b = createFaultline({ database: { inMemory: true }, logger: silentLogger }); // its own in-memory PGlite
    try {
      await a.api.organizations.create({ slug: "only-in-a" });
      await b.api.organizations.create({ slug: "only-in-b" });
      expect(await a.api.organizations.get("only-in-b")).toBeNull();
      expect(await b.api.organizations.get("only-in-a")).toBeNull();
      expect((await b.api.organizations.get("only-in-b"))?.slug).toBe("only-in-b");
      // Same slug in both is fine: nothing is shared.
      await b.api.organizations.create({ slug: "only-in-a" });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("with autoMigrate: false and a pending migration, ready() fails naming it and requests answer 503 until it is applied", async () => {
    const pendingSchema = `${schema}_pending`;
    // A release that brings a migration the database has not seen yet (here a plugin's; core ones are listed the same way, unprefixed).
    const audit = definePlugin({
      id: "acme-audit",
      migrations: [{ name: "0001_audit", statements: (s) => [`CREATE TABLE ${s}.acme_audit (id int)`] }],
    });
    const newest = "acme-audit:0001_audit";
    const previous = createFaultline({
      database: raw.input,
      schema: pendingSchema,
      logger: silentLogger,
      worker: false,
    });
    const migrator = createFaultline({
      database: raw.input,
      schema: pendingSchema,
      logger: silentLogger,
      worker: false,
      plugins: [audit],
    });
    const lines: string[] = [];
    const recording: Logger = {
      ...silentLogger,
      info: (obj, msg) => lines.push(typeof obj === "string" ? obj : (msg ?? "")),
    };
    const deployed = createFaultline({
      database: raw.input,
      schema: pendingSchema,
      autoMigrate: false,
      logger: recording,
      worker: false,
      plugins: [audit],
    });
    try {
      await previous.migrate();
      expect(await deployed.migrationStatus()).toEqual({ applied: [...firstPartyMigrationNames], pending: [newest] });

      const failure = await deployed.ready().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(MigrationsPendingError);
      expect((failure as MigrationsPendingError).pending).toEqual([newest]);
      expect((failure as Error).message).toBe(
        `Faultline's schema "${pendingSchema}" has 1 pending migration (${newest}) and autoMigrate is false: run \`faultline migrate\` (or faultline.migrate()) before starting, or set autoMigrate: true`,
      );
      const response = await deployed.handler(new Request("http://x/api/0/organizations/acme/"));
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toMatchObject({ detail: (failure as Error).message, pendingMigrations: [newest] });
      expect(lines).toEqual([]); // no storage line before it is usable

      // `faultline migrate` from elsewhere: the same instance recovers without a restart.
      expect(await migrator.migrate()).toEqual({ applied: [newest] });
      await deployed.ready();
      expect((await deployed.handler(new Request("http://x/api/0/organizations/acme/"))).status).toBe(401);
      expect(await deployed.migrationStatus()).toEqual({ applied: [...firstPartyMigrationNames, newest], pending: [] });
      // Which store, said once at startup, without credentials.
      expect(lines).toHaveLength(1);
      const where =
        typeof raw.input === "string"
          ? `PostgreSQL at ${new URL(raw.input).host}${new URL(raw.input).pathname}`
          : "embedded PGlite (the instance given as `database`)";
      expect(lines[0]).toBe(`faultline: storage ${where}, schema ${pendingSchema}`);
    } finally {
      await deployed.close();
      await migrator.close();
      await previous.close();
      await raw.query(`DROP SCHEMA IF EXISTS ${pendingSchema} CASCADE`);
    }
  });

  it("two instances on one database but different schemas are isolated too", async () => {
    const otherSchema = `${schema}_b`;
    const a = createFaultline({ database: raw.input, schema, logger: silentLogger });
    const b = createFaultline({ database: raw.input, schema: otherSchema, logger: silentLogger });
    try {
      await a.api.organizations.create({ slug: "schema-a" });
      expect(await b.api.organizations.get("schema-a")).toBeNull();
    } finally {
      await a.close();
      await b.close();
      await raw.query(`DROP SCHEMA IF EXISTS ${otherSchema} CASCADE`);
    }
  });
});
