import { describe, expect, it, vi } from "vitest";
import { createFaultline, defineEndpoint, definePlugin } from "../../src/index.js";
import { resolveOptions } from "../../src/options.js";

describe("createFaultline options", () => {
  it("fails at construction with a message naming the wrong option", () => {
    expect(() => createFaultline({ schema: "Bad-Schema" })).toThrow(
      /option "schema": must be a lowercase PostgreSQL identifier/,
    );
    expect(() => createFaultline({ database: "mysql://nope" as never })).toThrow(
      /option "database": expected a postgres:\/\/ connection string/,
    );
    expect(() => createFaultline({ basePath: "faultline/" })).toThrow(/option "basePath"/);
    expect(() => createFaultline({ limits: { bodyBytes: -1 } })).toThrow(/option "limits.bodyBytes"/);
    expect(() => createFaultline({ databse: "postgres://x" } as never)).toThrow(/unknown option "databse"/);
    expect(() => createFaultline({ connection: { timeoutMs: 0 } })).toThrow(/option "connection.timeoutMs"/);
    expect(() => createFaultline({ connection: { startupWaitMs: -1 } })).toThrow(/option "connection.startupWaitMs"/);
    expect(() => createFaultline({ connection: { timeout: 5 } } as never)).toThrow(
      /unknown option "connection.timeout"/,
    );
  });

  it("says what is wrong with an empty database string or DATABASE_URL, at construction", () => {
    expect(() => createFaultline({ database: "" })).toThrow(
      /option "database": is an empty string \(is DATABASE_URL set but empty\?\)/,
    );
    vi.stubEnv("DATABASE_URL", "");
    try {
      expect(() => createFaultline()).toThrow(/DATABASE_URL is set but empty/);
      vi.stubEnv("DATABASE_URL", "mysql://somewhere/db");
      expect(() => createFaultline()).toThrow(
        /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, or "memory:\/\/" \(it starts with "mysql"\)/,
      );
      vi.stubEnv("DATABASE_URL", "memory://");
      expect(() => createFaultline()).not.toThrow();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(() => createFaultline({ database: { inMemory: false } as never })).toThrow(
      /option "database": expected a postgres:\/\/ connection string, "memory:\/\/", \{ inMemory: true \}/,
    );
  });

  it("leaves load shedding off unless asked for, and refuses a bound below the histogram's resolution", () => {
    expect(resolveOptions({}).ingest.shedAtEventLoopDelayMs).toBeNull();
    expect(resolveOptions({ ingest: { shedAtEventLoopDelayMs: 30 } }).ingest.shedAtEventLoopDelayMs).toBe(30);
    expect(resolveOptions({ ingest: { shedAtEventLoopDelayMs: null } }).ingest.shedAtEventLoopDelayMs).toBeNull();
    expect(() => createFaultline({ ingest: { shedAtEventLoopDelayMs: 5 } })).toThrow(
      /option "ingest.shedAtEventLoopDelayMs"/,
    );
    expect(() => createFaultline({ ingest: { shedAtEventLoopDelayMs: 12.5 } })).toThrow(
      /option "ingest.shedAtEventLoopDelayMs"/,
    );
  });

  it("opens nothing at construction (no database needed to build an instance)", async () => {
    const faultline = createFaultline({ database: "postgres://nobody@127.0.0.1:1/none" });
    expect(typeof faultline.handler).toBe("function");
    await faultline.close();
  });
});

describe("plugin composition", () => {
  const endpoint = (operationId: string) =>
    defineEndpoint({
      method: "GET",
      path: "/api/0/organizations/{organization_id_or_slug}/svc-app-installations/",
      operationId,
      handler: () => ({ body: [] }),
    });

  it("throws on a path/method conflict, naming both plugins", () => {
    const clash = definePlugin({ id: "acme-clash", endpoints: [endpoint("acme.list")] });
    expect(() => createFaultline({ plugins: [clash] })).toThrow(
      /plugin "acme-clash".*plugin "installations"|plugin "installations".*plugin "acme-clash"/,
    );
  });

  it("throws on a duplicate plugin id, naming it", () => {
    expect(() => createFaultline({ plugins: [definePlugin({ id: "organizations" })] })).toThrow(
      /Plugin id conflict: two plugins are named "organizations"/,
    );
  });

  it("throws on a missing dependency and on a dependency cycle", () => {
    expect(() => createFaultline({ plugins: [definePlugin({ id: "a", dependencies: ["ghost"] })] })).toThrow(
      /"a" depends on "ghost"/,
    );
    const a = definePlugin({ id: "a", dependencies: ["b"] });
    const b = definePlugin({ id: "b", dependencies: ["a"] });
    expect(() => createFaultline({ plugins: [a, b] })).toThrow(/cycle: a → b → a/);
  });

  it("throws when two plugins' migrations would share one migration table", () => {
    const migrations = [{ name: "0001_init", statements: () => [] }];
    const a = definePlugin({ id: "acme-audit", migrations });
    const b = definePlugin({ id: "Acme_Audit", migrations });
    expect(() => createFaultline({ plugins: [a, b] })).toThrow(
      /plugins "acme-audit" and "Acme_Audit" would share the migration table "faultline_migration_acme_audit"/,
    );
    expect(() => createFaultline({ plugins: [a, definePlugin({ id: "Acme_Audit" })] })).not.toThrow();
  });

  it("throws on an API namespace provided twice", () => {
    const twice = definePlugin({ id: "dupe-api", api: () => ({ organizations: {} }) });
    expect(() => createFaultline({ plugins: [twice] })).toThrow(
      /"organizations" is provided by plugins "organizations" and "dupe-api"/,
    );
  });

  it("gives each instance its own container", () => {
    const a = createFaultline({ database: "memory://" });
    const b = createFaultline({ database: { inMemory: true } });
    expect(a.container).not.toBe(b.container);
    const token = a.services()[0];
    expect(token).toBeDefined();
    expect(a.container.resolve(token as symbol)).not.toBe(b.container.resolve(token as symbol));
  });
});
